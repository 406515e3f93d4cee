# Session 28, call 2: the acceptance sweeps again, at 485047f (the scale chunks of f729de7 reverted:
# call 1's cold sweep stopped after its plan line and held the GPU, so the kernels are session 27's,
# which the GPU tests and an A/B passed), with the cold run's progress kept (sweeps.sh), then r4d's
# torch tests on the committed tables (owed since session 25's tables; the gtests passed in
# session 27 on these kernels).
set -u
source "$(dirname "$0")/env.sh"
R4_COLD_TIMEOUT=240 R4_LLAMA_TIMEOUT=180 timeout 380 bash scripts/device/sweeps.sh > /tmp/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^time|^overlap|^plan|rc=|^step |^dflash |^llama3-8b |same config|max \|diff|\| " $OUT/sweeps.log | grep -v "^step .*M=" | cut -c1-200 | head -70
tar -cf $B/src.tar --exclude=./.device .
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 R4D_SKIP_BENCH=1 timeout 190 bash scripts/device/r4d.sh
rm -f $B/src.tar
