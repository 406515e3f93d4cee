# Session 21, call 1: the ldg generation's MB 3 / 4 tuples (activations loaded at the math) against
# each (shape, M) band's winner of the committed fixture, GEMM alone and the w4a8 pair (r4kern --one).
set -u
ab() { R4_AB_SETS="" R4_AB_CONFIGS="$1" bash scripts/device/ab_define.sh 2>&1 | grep -v checked; }
{
  echo "== M = 64"
  ab "w4a8:4,2,1,2,1,2,2@o@64 w4a8:4,2,4,1,0,2,2@o@64 w4a8:4,4,4,1,0,2,2@o@64 w4a8:2,4,4,1,0,2,2@o@64 w4a8:8,2,4,1,0,2,2@o@64 w4a8:4,8,4,1,0,2,2@o@64"
  ab "w4a8:4,4,1,2,0,2,2@qkv@64 w4a8:4,4,4,1,0,2,2@qkv@64 w4a8:4,8,4,1,0,2,2@qkv@64 w4a8:2,8,4,1,0,2,2@qkv@64"
  ab "w4a8:8,4,4,2,0,1,4@down@64 w4a8:4,2,1,2,0,2,4@down@64 w4a8:4,4,4,1,0,2,2@down@64 w4a8:4,8,4,1,0,2,2@down@64 w4a8:8,4,4,1,0,2,2@down@64"
  ab "w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:4,1,4,1,0,2,2@gate_up@64 w4a8:4,2,4,1,0,2,2@gate_up@64 w4a8:8,2,4,1,0,2,2@gate_up@64 w4a8:2,2,4,1,0,2,2@gate_up@64"
  ab "w4a8:4,8,1,2,1,2,2@kernel_proj@64 w4a8:4,8,4,1,0,2,2@kernel_proj@64 w4a8:4,16,4,1,0,2,2@kernel_proj@64 w4a8:2,16,4,1,0,2,2@kernel_proj@64"
  ab "w4a16_bf16:4,2,1,1,0,2,2@o@64 w4a16_bf16:4,4,4,1,0,2,2@o@64"
  echo "== M = 48"
  ab "w4a8:2,4,1,2,0,2,2@qkv@48 w4a8:4,4,3,1,0,2,2@qkv@48 w4a8:4,8,3,1,0,2,2@qkv@48 w4a8:4,4,3,2,0,2,2@qkv@48"
  ab "w4a8:8,2,1,1,0,2,2@o@48 w4a8:4,4,3,1,0,2,2@o@48 w4a8:4,2,3,2,0,2,2@o@48"
  ab "w4a8:4,2,1,2,0,2,4@down@48 w4a8:4,4,3,1,0,2,2@down@48 w4a8:4,2,3,2,0,2,2@down@48"
  ab "w4a8:2,1,1,4,0,2,2@gate_up@48 w4a8:4,1,3,1,0,2,2@gate_up@48 w4a8:4,1,3,2,0,2,2@gate_up@48 w4a8:4,2,3,1,0,2,2@gate_up@48"
  ab "w4a16_bf16:2,2,1,2,1,2,2@o@48 w4a16_bf16:4,4,3,1,0,2,2@o@48 w4a16_bf16:4,4,1,1,0,2,2@qkv@48 w4a16_bf16:4,4,3,1,0,2,2@qkv@48"
  ab "w4a16_bf16:4,1,1,2,0,2,2@gate_up@48 w4a16_bf16:4,1,3,1,0,2,2@gate_up@48"
} > $OUT/mb34-ab.txt 2>&1
cut -c1-160 $OUT/mb34-ab.txt
