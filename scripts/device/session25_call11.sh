# Session 25, call 11: stream-K (951d244's consumer-side segment ends) with the producer counting
# units and precomputed activation chunk offsets (R4G_INCR=1), on the M = 32..64 cells where
# 4-bit loses (race-style lines against the fixture's winners).
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked"; }
I="--define R4G_INCR=1 --define R4G_STREAMK"
one w4a8:8,4,4,1,1,1,4 gate_up 64 "$I=132"
one w4a8:8,4,4,1,0,1,4 gate_up 64 "$I=132"
one w4a8:8,4,3,2,1,1,4 gate_up 48 "$I=132"
one w4a8:8,4,3,1,1,1,4 gate_up 48 "$I=132"
one w4a8:8,4,2,2,1,1,4 gate_up 32 "$I=132"
one w4a8:8,8,4,1,0,1,4 down 64 "$I=132"
one w4a8:8,8,3,2,0,1,4 down 48 "$I=132"
one w4a8:8,16,4,1,1,1,4 qkv 64 "$I=132"
one w4a8:8,16,4,1,1,1,4 o 64 "$I=132"
one w4a8fp8:8,4,4,1,0,1,4 gate_up 64 "$I=132"
one w4a8fp8:8,4,3,2,0,1,4 gate_up 48 "$I=132"
one w4a8fp8:8,8,4,1,0,1,4 down 64 "$I=132"
