#!/usr/bin/env bash
# One device call for the acceptance runs on the H200 (through the device tool), binaries built
# here carried in .device/bin (scripts/device/pack.sh); everything lands in $OUT:
#   1. gpu-labelled tests (tuner, kernels, r4d);
#   2. the smoke sweep with injected faults (out-of-bounds, never-ending, wrong scale);
#   3. `r4tune sweep configs/dflash.toml` from a cold database, then again on the warm cache
#      (an independent second run), winners of the two compared;
#   4. kill -9 during measurement of a third run, then --resume, counts against run 1;
#   5. r4d (scripts/device/r4d.sh): its gtests, the Python module built there and the torch
#      test, r4d_bench; R4_SKIP_R4D=1 leaves it out (when the tables are about to be replaced by
#      this run's, r4d is tested in a second call with the new ones).
# A failed gpu-labelled test stops the call after a diagnosis (compute-sanitizer on the kernel
# check, the SASS of one config of each kernel): a wrong kernel is not swept.
set -uo pipefail
source "$(dirname "$0")/env.sh"
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep=' | ') for r in c.execute(sys.argv[2])]" "$@"; }
counts() { q "$1" "select $2, (select count(*) from checks where run_id=$2), (select count(*) from checks where run_id=$2 and status!='pass'), (select count(*) from measurements where run_id=$2), (select count(*) from winners where run_id=$2), (select count(*) from baselines where run_id=$2), (select status from runs where id=$2)"; }
L="$OUT/final.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  echo "== gpu-labelled tests"
  failed=0
  for t in tuner_gpu_runtime_test kernels_gpu_check_test r4d_launch_gpu_test r4d_graph_gpu_test; do
    timeout 180 $B/$t --gtest_brief=1 2>&1 | tail -4; rc=${PIPESTATUS[0]}; echo "$t rc=$rc"
    [[ $rc == 0 ]] || failed=1
  done
  if [[ $failed == 1 ]]; then
    echo "== a gpu-labelled test failed: diagnosis, then stop"
    timeout 240 compute-sanitizer --tool memcheck --show-backtrace device $B/kernels_gpu_check_test \
      --gtest_brief=1 2>&1 | head -60
    mkdir -p /tmp/src && tar -xf $B/src.tar -C /tmp/src
    for k in "gemm_w4a8_nt 8 4 1 1 1" "gemm_w4a16_nt 4 8 1 1 0"; do
      set -- $k
      nvcc -arch=sm_90 -std=c++17 -I/tmp/src -cubin -o "/tmp/$1.cubin" -DR4_WV=$2 -DR4_SK=$3 \
        -DR4_MB=$4 -DR4_NPW=$5 -DR4_NT=$6 -x cu "/tmp/src/kernels/$1.cu" &&
        cuobjdump -sass "/tmp/$1.cubin" >"$OUT/$1_$2_$3_$4_$5_$6.sass"
    done
  fi
} >"$L" 2>&1
if [[ $failed == 1 ]]; then tail -100 "$L"; exit 1; fi
{
  echo "== smoke sweep with injected faults"
  timeout 240 /usr/bin/time -f "smoke wall %e s" $B/r4tune sweep configs/test/smoke.toml --db /tmp/s.db \
    --plain --verify-timeout-ms 5000 2>&1 | grep -vE "^(compile|measure) "
  echo "smoke rc=${PIPESTATUS[0]}"
  q /tmp/s.db "select c.status, c.n, c.m, substr(c.detail,1,160) from checks c where c.status != 'pass'"
  q /tmp/s.db "select status, count(*) from measurements group by 1"
  echo "== dflash sweep, cold database"
  timeout 480 /usr/bin/time -f "dflash cold wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 | grep -vE "^(compile|measure) "
  cp /tmp/d.db /tmp/d_run1.db  # run 1 alone: the committed fixture when the tables are replaced
  echo "== dflash sweep again, warm compile cache (an independent second run)"
  timeout 300 /usr/bin/time -f "dflash warm wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 | grep -vE "^(compile|measure) " | grep -E "^(plan|run|time|stream)|wall"
  echo "== winners, run 1 against run 2 (re-measured medians)"
  q /tmp/d.db "select a.kernel, a.n, a.k, a.band_limit, round(a.median_us,2), round(b.median_us,2), round(100*(b.median_us-a.median_us)/a.median_us,2) from winners a join winners b on a.kernel=b.kernel and a.n=b.n and a.k=b.k and a.band_limit=b.band_limit where a.run_id=1 and b.run_id=2"
  q /tmp/d.db "select 'max |diff| %', max(abs(100*(b.median_us-a.median_us)/a.median_us)) from winners a join winners b on a.kernel=b.kernel and a.n=b.n and a.k=b.k and a.band_limit=b.band_limit where a.run_id=1 and b.run_id=2"
} >>"$L" 2>&1

{
  echo "== kill -9 during measurement of run 3 (warm cache), then --resume"
  cp /tmp/d.db /tmp/k.db
  $B/r4tune sweep configs/dflash.toml --db /tmp/k.db --plain >/tmp/k1.log 2>&1 &
  P=$!
  for i in $(seq 1 600); do
    n=$(q /tmp/k.db "select count(*) from measurements where run_id=3" 2>/dev/null || echo 0)
    [[ ${n:-0} -ge 2000 ]] && break
    sleep 0.2
  done
  echo "measurements of run 3 stored before the kill: $n"
  kill -9 $P; pkill -9 -f "r4tune worker"; sleep 1
  q /tmp/k.db "select id, status from runs"
  q /tmp/k.db "pragma integrity_check"
  timeout 300 $B/r4tune sweep configs/dflash.toml --db /tmp/k.db --plain --resume 2>&1 | grep -E "^(plan|run|time)|finished"
  echo "run | checks | failed | measurements | winners | baselines | status"
  counts /tmp/k.db 1; counts /tmp/k.db 3
  q /tmp/k.db "pragma integrity_check"
} >>"$L" 2>&1

[[ ${R4_SKIP_R4D:-0} == 1 ]] || R4D_GTESTS_DONE=1 scripts/device/r4d.sh

$B/r4tune emit --run 1 --db /tmp/d.db --format python --out "$OUT/h200_tables.py"
$B/r4tune emit --run 1 --db /tmp/d.db --format cpp --out "$OUT/h200_tables.hpp"
$B/r4tune report --run 1 --db /tmp/d.db --html "$OUT/report.html" --csv "$OUT/report.csv"
gzip -c /tmp/d.db >"$OUT/dflash.db.gz"
gzip -c /tmp/d_run1.db >"$OUT/dflash-run1.db.gz"
gzip -c /tmp/s.db >"$OUT/smoke.db.gz"
grep -E "rc=|wall|integrity|^time|^[13] \||max \|diff|before the kill|ratio" "$L"
grep -E "rc=|ratio|within" "$OUT/r4d.log" 2>/dev/null
