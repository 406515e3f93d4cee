# Session 25, call 13: the acceptance sweep at the landing commit (call 12's sweeps stopped at the
# database's SK CHECK, now schema v6): dflash cold, its per-shape table; the fixture, tables and
# report are refreshed from it (device time left allows no warm run and no llama3-8b run).
set -u
R4_SKIP_WARM=1 R4_SKIP_LLAMA=1 timeout 400 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^plan|wall|^run |rror|failed|\| " $OUT/sweeps.log | cut -c1-200 | head -40
xz -dc $OUT/dflash-run1.db.xz > /tmp/r1.db && python3 scripts/per_shape_table.py /tmp/r1.db 1 > $OUT/per-shape.md 2>&1; cat $OUT/per-shape.md | head -50
