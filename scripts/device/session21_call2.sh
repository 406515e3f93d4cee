# Session 21, call 2: r4kern --one's new race-style line against the committed sweep's pair times,
# ncu durations of two small-shape winners, then every gpu-labelled test and r4d at this commit
# (the kernels of aeddb13, the committed fixture's sweep).
set -u
B=.device/bin
ab() { R4_AB_SETS="" R4_AB_CONFIGS="$1" bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  ab "w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,4,1,2,0,2,2@qkv@48 w4a8:4,2,1,2,1,2,2@o@64 w4a8:4,8,1,2,1,2,2@kernel_proj@64"
  ab "w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:4,2,1,1,0,2,2@o@64 w4a8:8,1,4,2,1,1,4@gate_up@64"
} > $OUT/race-style.txt 2>&1
R4_SR_CONFIGS="w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,8,1,1,1,2,4@kernel_proj@1" \
  timeout 200 bash scripts/device/stall_reasons.sh > /dev/null 2>&1
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cut -c1-170 $OUT/race-style.txt; cat $OUT/stall-reasons.log; tail -5 $OUT/gpu-tests-stdout.txt; tail -15 $OUT/r4d-stdout.txt
