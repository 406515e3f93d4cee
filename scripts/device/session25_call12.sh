# Session 25, call 12 (the landing candidate: stream-K as SK = 132 in the sm90a generation, the
# direct producer by precomputed pointers): key configs through r4kern --one (checked, then timed),
# every gpu-labelled test binary, then the acceptance sweeps (dflash cold and warm, llama3-8b cold).
set -u
source "$(dirname "$0")/env.sh"
one() { timeout 90 $B/r4kern --one "$1" --shapes "$2" --m "$3" 2>&1 | grep -E "^one |rror|trap" | grep -vE "quant_act [0-9]"; }
{
one w4a8:8,132,4,1,1,1,4 gate_up 64
one w4a8:8,132,3,2,1,1,4 gate_up 48
one w4a8:8,132,3,2,1,1,4 gate_up 33
one w4a8:8,132,1,1,1,1,4 gate_up 1
one w4a8:8,132,4,1,0,1,4 down 64
one w4a8:8,1,4,2,1,1,4 gate_up 64
one w4a8fp8:8,132,3,2,0,1,4 gate_up 48
one w4a16_bf16:8,132,2,2,0,1,4 qkv 17
} > $OUT/one.txt 2>&1
grep -v checked $OUT/one.txt; grep -c "checked" $OUT/one.txt
bash scripts/device/gpu_tests.sh > $OUT/gpu-tests-stdout.txt 2>&1
tail -15 $OUT/gpu-tests-stdout.txt
timeout 560 bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
grep -E "^run |wall|^step |^dflash |^llama3-8b |same config|max \|diff|\| " $OUT/sweeps.log | grep -v "^step .*M=" | cut -c1-160 | head -60
