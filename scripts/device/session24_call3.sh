# Session 24, call 3: the acceptance sweeps at the session's final kernels (1337f3c: the kernel
# sources are df6b98d's, i.e. 5d23dcd's PTX; calls 1-2 left no kernel change): dflash cold, warm,
# llama3-8b cold. The fixture, tables and report are refreshed from its dflash run 1; call 4 runs
# r4d's tests with them.
set -u
timeout 560 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^step |^dflash |^llama3-8b |same config|max \|diff" $OUT/sweeps-stdout.txt | grep -v "^step .*M=" | cut -c1-160
