# Session 23, call 2 (binaries packed at the final kernels: 0740f7e's PTX, call 1's fence and
# coherent loads removed): every gpu-labelled test and r4d first (what a resolve needs at the final
# commit), then the acceptance sweeps (dflash cold, llama3-8b cold; no warm run: device time),
# whose winners are compared with the committed fixture's here, not on the device.
set -u
B=.device/bin
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cat $OUT/gpu-tests-stdout.txt; tail -12 $OUT/r4d-stdout.txt
R4_SKIP_WARM=1 timeout 330 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
cut -c1-160 $OUT/sweeps-stdout.txt
