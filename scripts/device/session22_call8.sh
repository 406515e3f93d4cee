# Session 22, call 8 (binaries packed at the R4L_WAIT_FENCE commit): the acceptance sweeps
# (dflash cold, llama3-8b cold; no warm run: device time), then every gpu-labelled test and r4d
# (r4d_bench against the committed tables' rows, compiled into these binaries; one device call
# was all the time left allowed).
# (At cd244bb R4L_WAIT_FENCE was on for the one-byte kinds; this call found the PDL step chain,
# r4d's graph replay and the torch test failing with it, and it was removed: docs/PERF.md.)
set -u
B=.device/bin
R4_SKIP_WARM=1 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B && tar -cf $B/src.tar --exclude=./.device .
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
cut -c1-160 $OUT/sweeps-stdout.txt; cat $OUT/gpu-tests-stdout.txt; tail -15 $OUT/r4d-stdout.txt
