#!/usr/bin/env bash
# The main job: build r4tune, show the GPUs, then tune the DFlash drafter's shapes
# (configs/dflash.toml) into out/r4tune.db and emit its tables and report under out/.
# Without a GPU the sweep plans, compiles and prunes (--compile-only) and the tables and report
# are emitted from the committed H200 run instead (tests/fixtures/h200-dflash-2026-11-30.db.tar.xz,
# which the build unpacks into build/fixtures/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
r4=./build/tuner/r4tune
mkdir -p out
$r4 devices
if $r4 devices --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["devices"] else 1)'; then
  $r4 sweep configs/dflash.toml --db out/r4tune.db
  db=out/r4tune.db run=latest
else
  $r4 sweep configs/dflash.toml --db out/r4tune.db --compile-only
  db=build/fixtures/h200-dflash-2026-11-30.db run=1
  echo "no GPU here: tables and report below come from the committed H200 run"
fi
$r4 emit --db "$db" --run "$run" --format python --out out/tables.py
$r4 emit --db "$db" --run "$run" --format cpp --out out/tables.hpp
$r4 emit --db "$db" --run "$run" --format json --out out/tables.json
$r4 report --db "$db" --run "$run" --html out/report.html --csv out/report.csv
echo "done: out/tables.{py,hpp,json}, out/report.html, out/report.csv"
