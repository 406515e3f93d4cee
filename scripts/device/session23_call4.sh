# Session 23, call 4 (binaries packed with R4L_WAIT_FENCE on for w4a8 and MXFP4: the never-run
# store that uses the batch's weights, coherent activation loads; call 3 measured it on branch
# exp/wait-use as value 2): the SASS of the defaults, every gpu-labelled test and r4d (the PDL
# chains, graph replay and torch test that caught session 22's early activation read), then the
# acceptance sweeps (dflash cold, llama3-8b cold; no warm run: device time).
set -u
B=.device/bin
R4_SW_CONFIGS="gemm_w4a8_nt:4,2,1,1,0,2,2 gemm_w4a8_nt:2,4,1,2,0,2,2 gemm_mxfp4a8fp8_nt:4,8,1,1,1,2,4 gemm_w4a8fp8_nt:4,8,1,1,1,2,2" \
  timeout 60 bash scripts/device/sass_wait.sh > $OUT/sass-wait.txt 2>&1
cat $OUT/sass-wait.txt
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cat $OUT/gpu-tests-stdout.txt; tail -12 $OUT/r4d-stdout.txt
R4_SKIP_WARM=1 timeout 330 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^step |^dflash |^llama3-8b " $OUT/sweeps-stdout.txt | grep -v "^step .*M=" | cut -c1-160
