# Session 25, call 8 (951d244's stream-K define, + R4G_SPLITDQ off): how a block's per-stage cost
# moves with the number of blocks that run at once. Stream-K over C = 33, 66, 99, 132 blocks
# (gate_up M = 64, NPW 1 and 2), and SK 1 NPW 1 on shapes with 24 and 40 tiles (GEMM alone).
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked|race"; }
for c in 33 66 99 132; do one w4a8:8,4,4,1,1,1,4 gate_up 64 "--define R4G_STREAMK=$c"; done
for c in 33 66 132; do one w4a8:8,4,4,2,1,1,4 gate_up 64 "--define R4G_STREAMK=$c"; done
for s in qkv o down; do one w4a8:8,1,4,1,1,1,4 $s 64; done
for s in qkv o down; do one w4a8:8,1,4,2,1,1,4 $s 64; done
