# Session 26, call 2: call 1's A/B of the scale chunks again, three rounds each way (run to run
# spread), on the stream-K winners (which lost 2% in call 1), non-stream-K 8-bit configs (which
# gained 1-2.4%) and two 16-bit configs; same binaries as call 1 (2bd1f5f).
set -u
source "$(dirname "$0")/env.sh"
C="w4a8:8,132,4,1,1,1,4@gate_up@64 w4a8:8,132,4,1,1,1,4@down@64 w4a8:8,132,3,1,1,1,4@gate_up@48 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a16_bf16:4,8,1,1,0,1,4@qkv@1 w4a16_bf16:8,4,2,1,1,1,6@o@32"
for r in 1 2 3; do
  R4_AB_SETS="R4G_SCHUNK=0" R4_AB_CONFIGS="$C" timeout 170 bash scripts/device/ab_define.sh > /dev/null 2>&1
  mv $OUT/ab.log $OUT/ab-round$r.log
done
grep -h "as a race" $OUT/ab-round*.log | sed -E 's/one ([a-z0-9_]+) sm90a\(([0-9, ]+)\) ([a-z_]+) M=([0-9]+)( R4G_SCHUNK=0)?: as a race times it: /\1 (\2) \3 \4\5 /' | sort | awk '{k=$0; sub(/ [0-9.]+ us$/,"",k); v[k]=v[k]" "$(NF-1)} END {for (k in v) print k ":" v[k]}' | sort
