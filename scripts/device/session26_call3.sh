# Session 26, call 3 (NOT RUN: no device was lent after call 2; for the next session, with the chunks on): the acceptance sweeps
# sm90a kinds outside stream-K): dflash from a cold database, again on the warm compile cache,
# and llama3-8b cold; emitted tables, report and the stripped databases come back.
set -u
source "$(dirname "$0")/env.sh"
timeout 560 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^step |^dflash |^llama3-8b |same config|max \|diff|\| " $OUT/sweeps.log | grep -v "^step .*M=" | cut -c1-160 | head -60
