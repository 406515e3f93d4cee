# Session 28, call 1: the acceptance sweeps at f729de7 (scale chunks on; SK 2, 4 and 8 sharing a
# body since session 27): dflash cold, dflash on the warm compile cache, llama3-8b cold; emitted
# tables, report and the stripped databases come back (scripts/device/sweeps.sh).
set -u
source "$(dirname "$0")/env.sh"
timeout 570 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^time|^overlap|^plan|^step |^dflash |^llama3-8b |same config|max \|diff|\| " $OUT/sweeps.log | grep -v "^step .*M=" | cut -c1-200 | head -70
