# Session 30, call 4 (NOT RUN: the session's device time was spent; session31_call1.sh runs it, after
# the epilogue's row-scale A/B that this call was to begin with): the scale chunks after the
# opt-in fix (e76dbee). Carry [".device/chunks"]:
# r4tune and r4kern of a -DR4_SM90A_SCALE_CHUNKS=ON build, plus the default build's
# tuner_gpu_runtime_test (the new 48 KiB + static shared memory launch). Call 3 found every launch
# of the chunk tuples (4, SK, 1, 1, NT, 6) failing CUDA_ERROR_INVALID_VALUE at 49152 B of dynamic
# shared memory (379 faults, sweep too slow to finish in 300 s). Then the dflash sweep with the
# chunks, cold: failed checks, its times, and its database (stripped, xz) to set its winners
# against call 2's default-build run.
set -u
source "$(dirname "$0")/env.sh"
C=.device/chunks
timeout 60 $C/tuner_gpu_runtime_test --gtest_brief=1 2>&1 | tail -4
# The chunk tuples that failed in call 3, under the chunks build with the fix (e76dbee): checked
# over poison, then timed. The full chunk sweep (below) only where the call has time left.
for one in w4a8:4,2,1,1,0,1,6@gate_up@64 w4a8fp8:4,8,1,1,1,1,6@qkv@16; do
  IFS=@ read -r cfg shape m <<<"$one"
  printf "chunks %s: " "$one"
  timeout 60 $C/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | tee -a $OUT/sa-early.log |
    awk '/r4kern:|rror/ {print} /max error/ {printf "err %s ", $NF} /race times/ {printf "race %s ", $(NF-1)}'
  echo
done
s=$(date +%s)
timeout 200 $C/r4tune sweep configs/dflash.toml --db /tmp/chunks.db --plain 2>&1 |
  while IFS= read -r l; do printf "%5d %s\n" $(( EPOCHSECONDS - s )) "$l"; done > $OUT/chunks-sweep.log
echo "sweep rc=${PIPESTATUS[0]} in $(( $(date +%s) - s )) s"
grep -E "check (fault|timeout|wrong)" $OUT/chunks-sweep.log | head -5
grep -vE "^ *[0-9]+ (compile|measure|step) " $OUT/chunks-sweep.log | tail -14
python3 -c "import sqlite3; c=sqlite3.connect('/tmp/chunks.db'); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('VACUUM')"
xz -9 -c /tmp/chunks.db > $OUT/chunks-run1.db.xz
gzip -f $OUT/chunks-sweep.log
