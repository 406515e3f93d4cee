# Session 25, call 4: what the activation staging costs when many blocks run (R4G_LESION 1: no
# activations, the consumer math kept), SK 1 (68 blocks) and stream-K (132), gate_up / down M = 64.
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked|race"; }
SKD="--define R4G_STREAMK=132"
for l in 0 1 2 3; do one w4a8:8,1,4,2,1,1,4 gate_up 64 "--define R4G_LESION=$l"; done
for l in 1 2 3; do one w4a8:8,4,4,1,1,1,4 gate_up 64 "$SKD --define R4G_LESION=$l"; done
for l in 0 1 2 3; do one w4a8:8,4,4,2,0,1,4 down 64 "--define R4G_LESION=$l"; done
for l in 0 1; do one w4a8:8,1,2,2,1,1,4 gate_up 32 "--define R4G_LESION=$l"; done
for l in 0 1; do one w4a8:8,16,4,1,1,1,4 qkv 64 "$SKD --define R4G_LESION=$l"; done
