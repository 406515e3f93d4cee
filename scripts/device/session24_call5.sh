# Session 24, call 5 (binaries with R4_SPLITK_UNROLL on: the global split-K reduction issues
# several trips' loads together): A/B against the old loop (--define R4_SPLITK_UNROLL=1) on the
# configs that take the global path (sm90a SK > 1, the fp8 ldg kinds), then, in the same call
# (device time), the landing runs: every gpu-labelled binary and r4d (the committed tables) and
# the acceptance sweeps (dflash cold, llama3-8b cold). If the A/B shows no gain the change is
# reverted and the sweeps are only a second sample of the old kernels' spread.
set -u
B=.device/bin
R4_AB_SETS="R4_SPLITK_UNROLL=1" R4_AB_CONFIGS="w4a8:8,4,4,2,0,1,4@down@64 w4a8:8,2,4,2,1,1,4@gate_up@64 w4a8:8,4,4,2,1,1,4@gate_up@64 w4a8:8,2,4,2,1,1,4@hidden_proj@64 w4a8:8,8,4,2,0,1,4@down@64 w4a8fp8:8,4,4,2,0,1,4@down@64 w4a8:8,2,3,2,1,1,4@gate_up@48 w4a8:4,16,1,1,0,1,4@hidden_proj@16 w4a8fp8:4,8,1,1,1,2,2@gate_up@1 mxfp4:4,8,1,1,1,2,4@qkv@16" \
  timeout 240 bash scripts/device/ab_define.sh > $OUT/unroll-ab.txt 2>&1
grep -E "us \(|race|error|FAIL" $OUT/unroll-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-150
rm -f $OUT/ab.log
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cat $OUT/gpu-tests-stdout.txt; tail -6 $OUT/r4d-stdout.txt; rm -f $OUT/pybuild.log
R4_SKIP_WARM=1 timeout 300 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^time|^dflash |^llama3-8b " $OUT/sweeps-stdout.txt | cut -c1-200
rm -f $OUT/emitted.tar.gz
