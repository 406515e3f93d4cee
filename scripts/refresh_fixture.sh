#!/usr/bin/env bash
# Replaces the committed H200 fixture with run 1 of a dflash sweep database that a device call
# returned (scripts/device/sweeps.sh writes dflash-run1.db.xz, binaries already stripped), by
# docs/DB.md's recipe: strip, rollback journal, VACUUM, tests/fixtures/h200-dflash-2026-11-30.db.tar.xz;
# then emits configs/generated/h200_tables.{py,hpp,json} from it (tests/configs fails if they
# drift) and takes the report's screenshot, docs/report-h200.png (headless chromium, 1400x2400).
# Usage: scripts/refresh_fixture.sh DB_OR_DB.xz [BUILD_DIR]   (BUILD_DIR default build, with
# r4tune built). The tables compile into r4d: run r4d's GPU tests and bench on the device with
# the refreshed tables before landing them.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/refresh_fixture.sh DB_OR_DB.xz [BUILD_DIR]}
bd=${2:-build}
r4tune=$bd/tuner/r4tune
[[ -f $src ]] || { echo "refresh_fixture: no such file: $src" >&2; exit 2; }
[[ -x $r4tune ]] || { echo "refresh_fixture: $r4tune not built (scripts/build.sh $bd)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/h200-dflash-2026-11-30.db
if [[ $src == *.xz ]]; then xz -dc "$src" >"$db"; else cp "$src" "$db"; fi
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
runs = c.execute("select count(*) from runs where id = 1").fetchone()[0]
if runs != 1:
    sys.exit(f"refresh_fixture: {sys.argv[1]} has no run 1")
failed = c.execute("select count(*) from checks where run_id = 1 and status != 'pass'").fetchone()[0]
winners = c.execute("select count(*) from winners where run_id = 1").fetchone()[0]
if failed or not winners:
    sys.exit(f"refresh_fixture: run 1 has {failed} failed checks and {winners} winners; not a fixture")
c.execute("UPDATE compiles SET binary = x''")
c.commit()
c.execute("PRAGMA journal_mode=DELETE")
c.execute("VACUUM")
print("run 1 at", *c.execute("select git_commit, started_at from runs where id = 1").fetchone(),
      f"{winners} winners, 0 failed checks")
PY
tar -cJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C "$tmp" h200-dflash-2026-11-30.db
mkdir -p "$bd/fixtures"
cp "$db" "$bd/fixtures/h200-dflash-2026-11-30.db"
for f in python:py cpp:hpp json:json; do
  "$r4tune" emit --db "$bd/fixtures/h200-dflash-2026-11-30.db" --run 1 --format "${f%%:*}" \
    --out "configs/generated/h200_tables.${f##*:}"
done
"$r4tune" report --db "$bd/fixtures/h200-dflash-2026-11-30.db" --run 1 --html "$tmp/report.html" \
  --csv "$tmp/report.csv"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,2400 \
  --screenshot="$PWD/docs/report-h200.png" "file://$tmp/report.html" 2>/dev/null
echo "refreshed: tests/fixtures/h200-dflash-2026-11-30.db.tar.xz, configs/generated/h200_tables.*," \
  "docs/report-h200.png"
