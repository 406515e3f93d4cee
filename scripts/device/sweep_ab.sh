#!/usr/bin/env bash
# Two r4tune builds raced on one machine (through the device tool): `sweep_ab.sh NEW OLD [SK]`,
# NEW and OLD folders under .device/ that hold an r4tune each (carried). dflash cold with each,
# NEW first; the winners compared per (kernel, band): NEW / OLD median, the extremes, and the
# median over the bands whose winner is sm90a with SK 1 (SK=1, the default) or with SK > 1 (SK=2)
# in both. Logs and the databases (compile binaries stripped) land in $OUT.
set -u
source "$(dirname "$0")/env.sh"
new=$1 old=$2 sk=${3:-1}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
for v in "$new" "$old"; do
  timeout 150 .device/$v/r4tune sweep configs/dflash.toml --db /tmp/$v.db --plain 2>&1 |
    grep -vE "^(compile|measure) " > $OUT/$v-sweep.log
  echo "$v rc=${PIPESTATUS[0]}"; grep -E "^(run|time)|dflash +8 " $OUT/$v-sweep.log
done
python3 - "$new" "$old" "$sk" <<'PY'
import sqlite3, statistics, sys
new, old, sk = sys.argv[1], sys.argv[2], int(sys.argv[3])
def w(db):
    c = sqlite3.connect(db)
    return {r[:4]: (r[4], r[5:]) for r in c.execute(
        "select kernel, n, k, band_limit, median_us, gen, wv, sk, mb, npw, nt, st from winners where run_id = 1")}
p, n = w(f"/tmp/{new}.db"), w(f"/tmp/{old}.db")
r = sorted((p[k][0] / n[k][0], k, n[k], p[k]) for k in n)
print("%s / %s, per (kernel, band): median %.4f, min %.4f, max %.4f" % (new, old, statistics.median([x[0] for x in r]), r[0][0], r[-1][0]))
for x in r[:8] + r[-5:]:
    print("%.3f %s %s %s %.2f %s %s %.2f %s" % (x[0], x[1][0], x[1][1:], old, x[2][0], x[2][1], new, x[3][0], x[3][1]))
keep = (lambda c: c[2] == 1) if sk == 1 else (lambda c: c[2] > 1)
both = [x[0] for x in r if x[3][1][0] == "sm90a" and keep(x[3][1]) and x[2][1][0] == "sm90a" and keep(x[2][1])]
print("bands whose winner is sm90a at SK %s in both:" % ("1" if sk == 1 else "> 1"), len(both),
      "median %.4f" % statistics.median(both) if both else "")
PY
for v in "$new" "$old"; do
  r4_pack_db /tmp/$v.db $OUT/$v-run1.db.xz
done
