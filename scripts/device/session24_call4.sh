# Session 24, call 4: r4d with the tables refreshed from call 3's dflash run (every gpu-labelled
# binary, the Python module and torch tests, r4d_bench against the new fixture), then one more cold
# dflash sweep of the same kernels (call 3's cold run took 129.3 s against 107.7 s in session 23:
# a second sample of the cold time; its database is not kept).
set -u
B=.device/bin
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cat $OUT/gpu-tests-stdout.txt; tail -12 $OUT/r4d-stdout.txt
R4_SKIP_WARM=1 R4_SKIP_LLAMA=1 timeout 200 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^time|^dflash " $OUT/sweeps-stdout.txt $OUT/sweeps.log | cut -c1-200
rm -f $OUT/dflash-run1.db.xz $OUT/emitted.tar.gz $OUT/llama.db.xz
