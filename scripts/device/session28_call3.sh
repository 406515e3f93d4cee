# Session 28, call 3 (NOT RUN: no machine could be started for it; the next session's first call): r4d on the tables refreshed from call 2's sweep (binaries of this commit):
# its launch and graph tests (every table row launched and checked), then r4d_bench, every table
# row through r4d against the tuner's NVRTC build and the stored sweep (the refreshed fixture).
set -u
source "$(dirname "$0")/env.sh"
for t in r4d_launch_gpu_test r4d_graph_gpu_test; do
  s=$(date +%s)
  timeout 150 $B/$t --gtest_brief=1 > $OUT/$t.log 2>&1
  echo "$t rc=$? in $(( $(date +%s) - s )) s"
  grep -E "PASSED|FAILED|Failure|checked" $OUT/$t.log | head -6
done
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
timeout 200 $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db > $OUT/r4d_bench.log 2>&1
echo "bench rc=$?"
grep -E "ratio" $OUT/r4d_bench.log
