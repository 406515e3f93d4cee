#!/usr/bin/env bash
# One device call for the acceptance runs on the H200 (through the device tool), binaries built
# here carried in .device/bin (scripts/device/pack.sh); everything lands in $OUT:
#   gpu-labelled tests; the smoke sweep with injected faults and its failing checks; kill -9
#   during a sweep then --resume; `r4tune sweep configs/dflash.toml` cold, then again on the warm
#   cache (a second, independent run); the tables and the report of the first run.
set -uo pipefail
B=.device/bin
OUT=${OUT:-/tmp/r4out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep=' | ') for r in c.execute(sys.argv[2])]" "$@"; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  echo "== gpu-labelled tests"
  for t in tuner_gpu_runtime_test kernels_gpu_check_test; do $B/$t --gtest_brief=1; echo "$t rc=$?"; done
  echo "== smoke sweep with injected faults"
  /usr/bin/time -f "smoke wall %e s" $B/r4tune sweep configs/test/smoke.toml --db /tmp/s.db --plain \
    --verify-timeout-ms 5000 2>&1 | grep -vE "^(compile|measure) "
  q /tmp/s.db "select c.status, c.n, c.m, substr(c.detail,1,140) from checks c where c.status != 'pass'"
  echo "== kill -9 during the smoke sweep, then --resume"
  cp /tmp/s.db /tmp/k.db
  $B/r4tune sweep configs/test/smoke.toml --db /tmp/k.db --plain --verify-timeout-ms 5000 >/tmp/k1.log 2>&1 &
  P=$!
  sleep 9
  kill -9 $P; pkill -9 -f "r4tune worker"; sleep 1
  q /tmp/k.db "select id, status from runs"
  q /tmp/k.db "pragma integrity_check"
  $B/r4tune sweep configs/test/smoke.toml --db /tmp/k.db --plain --verify-timeout-ms 5000 --resume 2>&1 | tail -3
  for r in 1 2; do q /tmp/k.db "select $r, (select count(*) from checks where run_id=$r), (select count(*) from measurements where run_id=$r), (select count(*) from winners where run_id=$r), (select count(*) from baselines where run_id=$r), (select status from runs where id=$r)"; done
  q /tmp/k.db "pragma integrity_check"
  echo "== dflash sweep, cold database"
  /usr/bin/time -f "dflash cold wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 | grep -vE "^(compile|measure) "
  echo "== dflash sweep again, warm compile cache (an independent second run)"
  /usr/bin/time -f "dflash warm wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 | grep -vE "^(compile|measure) " | head -8
  q /tmp/d.db "select a.kernel, a.n, a.k, a.band_limit, round(a.median_us,2), round(b.median_us,2), round(100*(b.median_us-a.median_us)/a.median_us,2) from winners a join winners b on a.kernel=b.kernel and a.n=b.n and a.k=b.k and a.band_limit=b.band_limit where a.run_id=1 and b.run_id=2"
} >"$OUT/final.log" 2>&1
$B/r4tune emit --run 1 --db /tmp/d.db --format python --out "$OUT/h200_tables.py"
$B/r4tune emit --run 1 --db /tmp/d.db --format cpp --out "$OUT/h200_tables.hpp"
$B/r4tune emit --run 1 --db /tmp/d.db --format json --out "$OUT/h200_tables.json"
$B/r4tune report --run 1 --db /tmp/d.db --html "$OUT/report.html" --csv "$OUT/report.csv"
gzip -c /tmp/d.db >"$OUT/dflash.db.gz"
grep -E "rc=|wall|integrity|^[12] \|" "$OUT/final.log"
