#!/usr/bin/env bash
# The main job on the H200 (through the device tool): the smoke sweep with injected faults, then
# `r4tune sweep configs/dflash.toml` from a cold database, then the emitted tables and the report.
# Binaries built here are carried in .device/bin (scripts/device/pack.sh); outputs go to $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  echo "== smoke sweep (injected faults)"
  /usr/bin/time -f "smoke wall %e s" $B/r4tune sweep configs/test/smoke.toml --db /tmp/smoke.db \
    --plain --verify-timeout-ms 5000
  echo "smoke rc=$?"
  $B/r4tune db show latest --db /tmp/smoke.db
} >"$OUT/smoke.log" 2>&1
grep -E "rc=|wall|rows|checks" "$OUT/smoke.log"
{
  echo "== dflash sweep, cold database"
  /usr/bin/time -f "dflash wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/dflash.db --plain \
    ${R4_SWEEP_ARGS:-}
  echo "dflash rc=$?"
  $B/r4tune db show latest --db /tmp/dflash.db
} >"$OUT/dflash.log" 2>&1
tail -45 "$OUT/dflash.log"
$B/r4tune emit --run latest --db /tmp/dflash.db --format python --out "$OUT/h200_tables.py"
$B/r4tune emit --run latest --db /tmp/dflash.db --format cpp --out "$OUT/h200_tables.hpp"
$B/r4tune emit --run latest --db /tmp/dflash.db --format json --out "$OUT/h200_tables.json"
$B/r4tune report --run latest --db /tmp/dflash.db --html "$OUT/report.html" --csv "$OUT/report.csv"
gzip -c /tmp/dflash.db >"$OUT/dflash.db.gz"
ls -la "$OUT"
