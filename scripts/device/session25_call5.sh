# Session 25, call 5: what bounds the bare weight ring (R4G_LESION 3: 22.7 us for gate_up's 46 MB
# at 68 blocks and at 132, against the 12.5 us read floor): ring depth (ST 8), evict-first off,
# half the bulk copies (bit 16: no scale copies), and the full kernel without scale copies.
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked|race|LESION,"; }
one w4a8:8,1,4,2,1,1,4 gate_up 64 "--define R4G_LESION=3"
one w4a8:8,1,4,2,1,1,8 gate_up 64 "--define R4G_LESION=3"
one w4a8:8,1,4,2,0,1,4 gate_up 64 "--define R4G_LESION=3"
one w4a8:8,1,4,2,1,1,4 gate_up 64 "--define R4G_LESION=19"
one w4a8:8,1,4,2,1,1,8 gate_up 64 "--define R4G_LESION=19"
one w4a8:8,1,4,2,1,1,4 gate_up 64 "--define R4G_LESION=16"
one w4a8:8,1,4,2,1,1,8 gate_up 64
one w4a8:8,1,4,1,1,1,4 gate_up 64 "--define R4G_STREAMK=132 --define R4G_LESION=19"
one w4a8:4,1,1,2,1,1,4 gate_up 1 "--define R4G_LESION=3"
one w4a8:4,1,1,2,1,1,4 gate_up 1 "--define R4G_LESION=19"
one w4a8:4,1,1,2,1,1,8 gate_up 1 "--define R4G_LESION=3"
