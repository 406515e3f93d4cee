# Session 20, call 3 (binaries packed at 7b25759, the committed tables): every gpu-labelled test
# and r4d against the refreshed fixture, then A/B runs for the next session's register-bound knob.
set -u
B=.device/bin
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
ab() { R4_AB_SETS="$1" R4_AB_CONFIGS="$2" timeout 60 bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  ab "R4L_MIN_BLOCKS=5" "w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16"
  ab "R4L_JIT_ACT=1+R4L_MIN_BLOCKS=5" "w4a16_bf16:4,4,1,1,0,2,2@o@16 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1"
  ab "R4L_JIT_ACT=1+R4L_MIN_BLOCKS=12" "w4a8:2,2,1,1,0,2,2@gate_up@1 w4a8:2,2,1,1,0,2,2@gate_up@16"
  ab "R4L_MIN_BLOCKS=12" "w4a16_bf16:2,2,1,1,0,2,2@gate_up@1"
} > $OUT/knob-ab.txt 2>&1
tail -5 $OUT/gpu-tests-stdout.txt; tail -15 $OUT/r4d-stdout.txt; cat $OUT/knob-ab.txt | cut -c1-120
