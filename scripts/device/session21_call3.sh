# Session 21, call 3: R4L_DUALP (two or four group partials per tile and sub-tile: the mma.sync
# chain of a group split into independent ones) on the ldg winners of the committed fixture at
# M <= 16 (and one M = 64), r4kern --one: GEMM alone, the hot pair and the race-style line.
set -u
ab() { R4_AB_SETS="$1" R4_AB_CONFIGS="$2" bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  ab "R4L_DUALP=2|R4L_DUALP=4" "w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,8,1,1,1,2,4@kernel_proj@1 w4a16_bf16:2,8,1,1,0,2,2@kernel_proj@16 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:4,8,1,1,0,2,2@qkv@1 w4a16_bf16:2,8,1,2,0,2,2@qkv@16 w4a16_bf16:4,8,1,1,0,2,2@down@1 w4a16_bf16:4,8,1,1,0,2,2@down@16 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a16_bf16:4,2,1,1,0,2,2@gate_up@16"
  ab "R4L_DUALP=2" "w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:2,8,1,1,0,2,2@kernel_proj@1 w4a8:2,4,1,1,0,2,4@o@8 w4a8:2,8,1,1,0,2,2@qkv@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:4,2,1,2,1,2,2@o@64"
} > $OUT/dualp-ab.txt 2>&1
grep -E "us \(|race" $OUT/dualp-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-150
