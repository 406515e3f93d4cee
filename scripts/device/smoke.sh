#!/usr/bin/env bash
# Runs on the H200 through the device tool, from the repository root, with the binaries built
# here carried in .device/bin (scripts/device/pack.sh). Logs and databases go to $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/smi.txt"
echo "== smoke sweep (injected faults)"
R4TUNE_TRACE_WORKER=${R4TUNE_TRACE_WORKER:-0} /usr/bin/time -f "wall %e s" $B/r4tune sweep configs/test/smoke.toml --db "$OUT/smoke.db" --plain \
  --verify-timeout-ms 5000 >"$OUT/smoke.log" 2>&1
echo "rc=$?" >>"$OUT/smoke.log"
tail -40 "$OUT/smoke.log"
$B/r4tune db show latest --db "$OUT/smoke.db" 2>&1 | tail -30
sqlite3 "$OUT/smoke.db" "select status, detail from checks where status != 'pass' limit 20;" 2>/dev/null ||
  echo "(no sqlite3 here)"
$B/r4tune report --run latest --db "$OUT/smoke.db" --html "$OUT/smoke.html" --csv "$OUT/smoke.csv"
