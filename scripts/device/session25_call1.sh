# Session 25, call 1 (c890b55): stream-K in the sm90a generation (--define R4G_STREAMK=C; the
# grid's first C blocks share the (tile, group) units in equal ranges), against the fixture's
# winners at M = 32..64 where 4-bit loses to bf16 / block-fp8. r4kern --one: checked against the
# GPU reference over poison, then GEMM alone, quant_act + GEMM, and the race-style line.
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -v "quant_act [0-9]"; }
SKD="--define R4G_STREAMK=132"
one w4a8:8,1,4,2,1,1,4 gate_up 64
one w4a8:8,4,4,2,1,1,4 gate_up 64 "$SKD --binary $OUT/sk_gate_up.cubin"
one w4a8:8,4,4,1,1,1,4 gate_up 64 "$SKD"
one w4a8:8,4,3,2,1,1,4 gate_up 48 "$SKD"
one w4a8:8,4,2,2,1,1,4 gate_up 32 "$SKD"
one w4a8:8,4,4,2,0,1,4 down 64
one w4a8:8,8,4,2,0,1,4 down 64 "$SKD"
one w4a8:8,8,3,2,0,1,4 down 48 "$SKD"
one w4a8:8,16,4,2,1,1,4 qkv 64 "$SKD"
one w4a8:8,16,4,2,1,1,4 qkv 64 "--define R4G_STREAMK=66"
one w4a8:8,16,4,1,1,1,4 qkv 64 "$SKD"
one w4a8:8,16,4,2,1,1,4 o 64 "$SKD"
one w4a8:8,16,4,1,1,1,4 o 64 "$SKD"
one w4a8:8,16,4,1,0,1,4 kernel_proj 64 "$SKD"
one w4a8fp8:8,4,4,2,0,1,4 gate_up 64 "$SKD"
one w4a8fp8:8,8,4,2,0,1,4 down 64 "$SKD"
if [[ -f $OUT/sk_gate_up.cubin ]]; then
  cuobjdump -sass $OUT/sk_gate_up.cubin > /tmp/sk.sass
  echo "sass lines $(wc -l < /tmp/sk.sass), STL $(grep -c STL /tmp/sk.sass), LDL $(grep -c LDL /tmp/sk.sass), HGMMA/IGMMA $(grep -cE 'IGMMA|HGMMA' /tmp/sk.sass)"
  grep -nE "STL|LDL|IGMMA|BAR.SYNC|ATOM|SYNCS" /tmp/sk.sass | awk '{print $1, $2, $3, $4}' | head -80
  rm -f $OUT/sk_gate_up.cubin
fi
