# Session 25, call 9: why stream-K's per-unit cost (0.8 us, NPW 1, call 8) exceeds SK 1's per-stage
# (0.52 us): the same schedule through both code paths (qkv M = 64, 24 tiles of 128 rows: SK 1
# against stream-K over 24 blocks, one whole tile each), and the producer's division (R4G_INCR)
# and the partials' empty redefinition (R4G_NOUNDEF) taken out.
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]|checked|race"; }
one w4a8:8,1,4,1,1,1,4 qkv 64
for v in "" "--define R4G_INCR=1" "--define R4G_NOUNDEF=1" "--define R4G_INCR=1 --define R4G_NOUNDEF=1"; do
  one w4a8:8,4,4,1,1,1,4 qkv 64 "--define R4G_STREAMK=24 $v"
done
for v in "" "--define R4G_INCR=1" "--define R4G_NOUNDEF=1" "--define R4G_INCR=1 --define R4G_NOUNDEF=1"; do
  one w4a8:8,4,4,1,1,1,4 gate_up 64 "--define R4G_STREAMK=132 $v"
done
one w4a8:8,4,4,2,1,1,4 gate_up 64 "--define R4G_STREAMK=132 --define R4G_INCR=1 --define R4G_NOUNDEF=1"
