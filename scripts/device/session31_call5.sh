# Session 31, call 5 (carry [".device/bin", ".device/noepi"]; .device/noepi/r4tune is this commit's
# r4tune built with R4G_EPI_PACK 0 in the kernel header, then reverted): the packed epilogue's effect
# on the sweep's winners on one machine. Calls 2 and 4 ran on different H100s (~1% apart on
# unchanged ldg winners), so their difference cannot price it. dflash cold twice: packed, then not.
set -u
source "$(dirname "$0")/env.sh"
for v in bin noepi; do
  timeout 150 .device/$v/r4tune sweep configs/dflash.toml --db /tmp/$v.db --plain 2>&1 |
    grep -vE "^(compile|measure) " > $OUT/$v-sweep.log
  echo "$v rc=${PIPESTATUS[0]}"; grep -E "^(run|time)|dflash +8 " $OUT/$v-sweep.log
done
python3 - <<'PY'
import sqlite3, statistics
def w(db):
    c = sqlite3.connect(db)
    return {r[:4]: (r[4], r[5:]) for r in c.execute(
        "select kernel, n, k, band_limit, median_us, gen, wv, sk, mb, npw, nt, st from winners where run_id = 1")}
p, n = w("/tmp/bin.db"), w("/tmp/noepi.db")
r = sorted((p[k][0] / n[k][0], k, n[k], p[k]) for k in n)
print("packed / not, per (kernel, band): median %.4f, min %.4f, max %.4f" % (statistics.median([x[0] for x in r]), r[0][0], r[-1][0]))
for x in r[:8] + r[-5:]:
    print("%.3f %s %s not %.2f %s packed %.2f %s" % (x[0], x[1][0], x[1][1:], x[2][0], x[2][1], x[3][0], x[3][1]))
sk1 = [x[0] for x in r if x[3][1][0] == "sm90a" and x[3][1][2] == 1 and x[2][1][0] == "sm90a" and x[2][1][2] == 1]
print("bands whose winner is sm90a SK 1 in both:", len(sk1), "median %.4f" % statistics.median(sk1) if sk1 else "")
PY
for v in bin noepi; do
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" /tmp/$v.db
  xz -9 -c /tmp/$v.db > $OUT/$v-run1.db.xz
done
