# Session 32, call 1 (written in session 31; pack: R4_PACK_BUILD=build
# scripts/device/pack.sh; rm -f .device/bin/src.tar .device/bin/h200-dflash-2026-11-30.db; carry
# [".device/bin"]): R4G_EPI_PACK_SK, the stream-K segment end's tile stores packed across lanes
# into 8-byte stores, as the SK 1 epilogue's are since session 31 (R4G_EPI_PACK: MB 4 / 3 tiles
# 2.5-4% faster on an H100). Stream-K wins gate_up and down at M = 48 / 64, and on the H100 w4a8fp8
# down M = 64 lost to block-fp8 by 0.4 us (25.87 against 25.48, session 31 call 4).
# Prediction (docs/PERF.md "Session 31"): 0.3-0.8 us less per MB 4 stream-K config (a tile's last
# contributor stores it as the SK 1 epilogue does; the other contributors' f32 slots are unchanged),
# less at MB 3. Each config is checked over poison before it is timed (ab_define.sh). Registers
# (NVRTC, (8, 132, 4, 1, 1, 4) w4a8): 128 -> 134, 0 spills, one 384-thread block per SM either way.
set -u
source "$(dirname "$0")/env.sh"
R4_AB_SETS="R4G_EPI_PACK_SK=1|R4G_EPI_PACK_SK=0|R4G_EPI_PACK_SK=1" \
R4_AB_CONFIGS="w4a8:8,132,4,1,1,1,4@gate_up@64 w4a8:8,132,4,1,1,1,4@down@64 \
w4a8fp8:8,132,4,1,1,1,4@down@64 w4a8fp8:8,132,4,1,1,1,4@gate_up@64 w4a8fp8:8,132,3,1,1,1,4@gate_up@48 \
w4a8fp8:8,132,3,1,0,1,4@down@48" \
  timeout 200 bash scripts/device/ab_define.sh
# Then the sweep's view, on the same machine (carry also ".device/pksk": this commit's r4tune
# built with R4G_EPI_PACK_SK 1 in the kernel header, then reverted): dflash cold twice, packed
# stream-K ends first, then the default; winners compared per (kernel, band).
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
for v in pksk bin; do
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
p, n = w("/tmp/pksk.db"), w("/tmp/bin.db")
r = sorted((p[k][0] / n[k][0], k, n[k], p[k]) for k in n)
print("pksk / default, per (kernel, band): median %.4f, min %.4f, max %.4f" % (statistics.median([x[0] for x in r]), r[0][0], r[-1][0]))
for x in r[:8] + r[-5:]:
    print("%.3f %s %s default %.2f %s pksk %.2f %s" % (x[0], x[1][0], x[1][1:], x[2][0], x[2][1], x[3][0], x[3][1]))
sk = [x[0] for x in r if x[3][1][0] == "sm90a" and x[3][1][2] > 1 and x[2][1][0] == "sm90a" and x[2][1][2] > 1]
print("bands whose winner is sm90a stream-K (SK > 1) in both:", len(sk), "median %.4f" % statistics.median(sk) if sk else "")
PY
for v in pksk bin; do
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" /tmp/$v.db
  xz -9 -c /tmp/$v.db > $OUT/$v-run1.db.xz
done
