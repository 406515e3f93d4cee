# Session 21, call 5: the cluster split-K reduction's parts (R4L_LESION 1: none of it; 4: only its
# first cluster barrier; 8: all but the output stores), on the small-shape ldg winners.
set -u
ab() { R4_AB_SETS="$1" R4_AB_CONFIGS="$2" bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  ab "R4L_LESION=1|R4L_LESION=4|R4L_LESION=8" "w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:4,8,1,1,0,2,2@qkv@1 w4a8:4,2,1,1,0,2,2@gate_up@1"
} > $OUT/reduce-lesion-ab.txt 2>&1
grep -E "us \(|race" $OUT/reduce-lesion-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-150
