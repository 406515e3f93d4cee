# Session 23, call 2 (binaries of call 1's commit, 56e5fd4's kernels): the acceptance sweeps
# (dflash cold, llama3-8b cold; no warm run: device time), whose PDL step chains run the new
# kernels after their quantisers; the dflash run is the fixture candidate.
set -u
R4_SKIP_WARM=1 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
cut -c1-160 $OUT/sweeps-stdout.txt
