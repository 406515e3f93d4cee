# Session 25, call 2 (diagnosis of call 1's stream-K slowdown): lesions of the stream-K path
# (R4G_LESION 4: no segment ends; 8: no last-contributor reduction; 3: the bare ring) and the
# bare ring at SK 1 on three K (o 16, gate_up 40, down 68 stages) for the fixed part of a block.
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked"; }
SKD="--define R4G_STREAMK=132"
for l in 0 4 8 3 7; do one w4a8:8,4,4,1,1,1,4 gate_up 64 "$SKD --define R4G_LESION=$l"; done
for l in 0 4 8; do one w4a8:8,8,4,2,0,1,4 down 64 "$SKD --define R4G_LESION=$l"; done
for s in o gate_up down; do one w4a8:8,1,4,2,1,1,4 $s 64 "--define R4G_LESION=3"; done
for s in o gate_up down; do one w4a8:8,1,4,2,1,1,4 $s 64; done
