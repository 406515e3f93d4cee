# Session 31, call 3 (same pack as call 2, plus .device/nochunks/r4tune: the same commit built with
# -DR4_SM90A_SCALE_CHUNKS=OFF): the chunks' effect on the sweep's winners, one dflash cold sweep
# without them on the same machine as call 2's (compare per band with call 2's run 1), then
# r4d_bench (r4d against the tuner's NVRTC build of every table row; the stored column is the
# committed H200 fixture's, so it means nothing on another card).
set -u
source "$(dirname "$0")/env.sh"
echo "== dflash cold, scale chunks off"
timeout 200 .device/nochunks/r4tune sweep configs/dflash.toml --db /tmp/nc.db --plain 2>&1 |
  grep -vE "^(compile|measure) " > $OUT/nochunks-sweep.log
echo "nochunks rc=${PIPESTATUS[0]}"
grep -E "^(run|time|step)" $OUT/nochunks-sweep.log
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" /tmp/nc.db
xz -9 -c /tmp/nc.db > $OUT/nochunks-run1.db.xz
echo "== r4d_bench"
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
timeout 230 $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db > $OUT/r4d_bench.log 2>&1
echo "bench rc=$?"
grep -E "ratio" $OUT/r4d_bench.log
echo "== R4G_EPI_PACK A/B (the SK 1 sm90a epilogue's bf16 outputs packed across lanes, 8-byte stores)"
# SK 1 sm90a configs of both one-byte kinds (MB 4 and 3, the o_proj M = 48 winner) and MB 1.
R4_AB_SETS="R4G_EPI_PACK=1|R4G_EPI_PACK=0|R4G_EPI_PACK=1" \
R4_AB_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,1,4,2,1,1,4@o@64 w4a8:8,1,4,2,1,1,4@hidden_proj@64 \
w4a8fp8:8,1,4,2,1,1,4@o@64 w4a8fp8:4,1,3,1,1,1,4@o@48 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,1,1,2,0,1,4@qkv@16" \
  timeout 150 bash scripts/device/ab_define.sh
