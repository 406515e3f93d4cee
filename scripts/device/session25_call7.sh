# Session 25, call 7: stream-K as a config (SK = 132: kernels/config.hpp kSm90aStreamK), the
# producer finishing each tile segment from a shared tile buffer (the consumers only hand their
# accumulators over), against the fixture's winners at M = 32..64 (race-style lines).
set -u
source "$(dirname "$0")/env.sh"
R=.device/bin/r4kern
one() { timeout 90 $R --one "$1" --shapes "$2" --m "$3" ${4:-} 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]"; }
one w4a8:8,132,4,2,1,1,4 gate_up 64 "--binary $OUT/sk.cubin"
one w4a8:8,132,4,1,1,1,4 gate_up 64
one w4a8:8,132,4,2,0,1,4 gate_up 64
one w4a8:8,132,3,2,1,1,4 gate_up 48
one w4a8:8,132,3,2,1,1,4 gate_up 33
one w4a8:8,132,2,2,1,1,4 gate_up 32
one w4a8:8,132,4,2,0,1,4 down 64
one w4a8:8,132,4,1,0,1,4 down 64
one w4a8:8,132,3,2,0,1,4 down 48
one w4a8:8,132,2,2,0,1,4 down 32
one w4a8:8,132,4,1,1,1,4 qkv 64
one w4a8:8,132,4,2,1,1,4 qkv 64
one w4a8:8,132,4,1,1,1,4 o 64
one w4a8:8,132,4,1,0,1,4 kernel_proj 64
one w4a8fp8:8,132,4,2,0,1,4 gate_up 64
one w4a8fp8:8,132,3,2,0,1,4 gate_up 48
one w4a8fp8:8,132,4,2,0,1,4 down 64
one w4a16_bf16:8,132,4,1,0,1,4 gate_up 64
if [[ -f $OUT/sk.cubin ]]; then
  cuobjdump -sass $OUT/sk.cubin > /tmp/sk.sass
  echo "sass lines $(wc -l < /tmp/sk.sass), STL $(grep -c STL /tmp/sk.sass), LDL $(grep -c LDL /tmp/sk.sass)"
  grep -nE "STL|LDL|IGMMA|BAR.SYNC|ATOM|EXIT|BRA" /tmp/sk.sass | awk '{print $1, $2, $3, $4}' | head -70
  rm -f $OUT/sk.cubin
fi
