# Session 23, call 1 (binaries packed at 56e5fd4: R4L_WAIT_FENCE on for the one-byte kinds with
# R4L_DEP_LD, coherent activation and row-scale loads). First the SASS: the wait's place and the
# opcodes of the loads before it (only .CONSTANT weight and scale loads may precede it); then
# race-style A/B against the old kernels (FENCE=0: .nc loads, wait first) and against the
# coherent loads alone; then every gpu-labelled test and r4d (the graph replay and torch test
# are what caught the hoisted .nc loads in session 22, call 8).
set -u
B=.device/bin
R4_SW_DEFINES="|-DR4L_WAIT_FENCE=0" R4_SW_CONFIGS="gemm_w4a8_nt:4,2,1,1,0,2,2 gemm_w4a8_nt:2,4,1,1,0,2,2 gemm_w4a8_nt:4,8,1,2,1,2,2 gemm_mxfp4a8fp8_nt:4,8,1,1,1,2,4 gemm_w4a8fp8_nt:4,8,1,1,1,2,2 gemm_w4a16_nt:2,16,1,1,1,2,4:-DR4_A_BF16=1" \
  timeout 120 bash scripts/device/sass_wait.sh > $OUT/sass-wait.txt 2>&1
cat $OUT/sass-wait.txt
R4_AB_SETS="R4L_WAIT_FENCE=0|R4L_WAIT_FENCE=0+R4L_DEP_LD=1" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,8,1,2,1,2,2@kernel_proj@64 mxfp4:4,8,1,1,1,2,4@qkv@16 w4a8fp8:4,8,1,1,1,2,2@gate_up@1" \
  timeout 200 bash scripts/device/ab_define.sh > $OUT/dep-ab.txt 2>&1
grep -E "checked|race" $OUT/dep-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-150
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cat $OUT/gpu-tests-stdout.txt; tail -15 $OUT/r4d-stdout.txt
