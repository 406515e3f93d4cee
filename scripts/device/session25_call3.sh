# Session 25, call 3: stream-K with fragment-order partials and the last contributor's sum in
# registers (one L2 round trip per eight float4s per slot in place of the tile-wide loop), against
# the fixture's winners (call 1: SK 1 gate_up 64 38.68, down 64 SK 4 26.51).
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]"; }
SKD="--define R4G_STREAMK=132"
one w4a8:8,4,4,2,1,1,4 gate_up 64 "$SKD"
one w4a8:8,4,4,1,1,1,4 gate_up 64 "$SKD"
one w4a8:8,4,4,2,1,1,4 gate_up 64 "$SKD --define R4G_LESION=8"
one w4a8:8,4,3,2,1,1,4 gate_up 48 "$SKD"
one w4a8:8,2,3,2,1,1,4 gate_up 48
one w4a8:8,4,2,2,1,1,4 gate_up 32 "$SKD"
one w4a8:8,1,2,2,1,1,4 gate_up 32
one w4a8:8,8,4,2,0,1,4 down 64 "$SKD"
one w4a8:8,8,4,1,0,1,4 down 64 "$SKD"
one w4a8:8,8,3,2,0,1,4 down 48 "$SKD"
one w4a8:8,4,3,2,0,1,4 down 48
one w4a8:8,16,4,1,1,1,4 qkv 64 "$SKD"
one w4a8:8,16,3,1,1,1,4 qkv 48 "$SKD"
one w4a8fp8:8,4,4,2,0,1,4 gate_up 64 "$SKD"
one w4a8fp8:8,4,3,2,0,1,4 gate_up 48 "$SKD"
