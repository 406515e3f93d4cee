# Session 21, call 4: what the ldg winners' split-K reduction and math cost at M <= 16
# (R4L_LESION 1: no reduction, 2: no dequant / MMA, 3: neither; r4kern --one times lesions
# unchecked and labels them), small shapes first.
set -u
ab() { R4_AB_SETS="$1" R4_AB_CONFIGS="$2" bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  ab "R4L_LESION=1|R4L_LESION=2|R4L_LESION=3" "w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,8,1,1,1,2,4@kernel_proj@1 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:4,8,1,1,0,2,2@qkv@1 w4a16_bf16:4,8,1,1,0,2,2@down@1 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a16_bf16:4,2,1,1,0,2,2@gate_up@16 w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16"
} > $OUT/lesion-ab.txt 2>&1
grep -E "us \(|race" $OUT/lesion-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-150
