# Session 20, call 1 (r4kern at 889dbd9): launch-bound A/B and the stall breakdown. R4_MIN_BLOCKS was
# 889dbd9's prelude define for every kernel; it is R4L_MIN_BLOCKS (ldg kernels only) since da4316c.
set -u
mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt 2>&1
R4_AB_SETS="R4_MIN_BLOCKS=8|R4_MIN_BLOCKS=10" R4_AB_CONFIGS="w4a8:2,2,1,1,0,2,2@gate_up@1 w4a8:2,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@gate_up@1 w4a8:2,2,1,2,0,2,2@gate_up@1 w4a8:2,2,1,2,0,2,2@gate_up@16 w4a16_bf16:2,2,1,1,0,2,2@gate_up@1 w4a16_bf16:2,2,1,1,0,2,2@gate_up@16 w4a16_bf16:2,1,1,1,0,2,2@gate_up@1 w4a16_bf16:2,4,1,1,0,2,2@down@1 w4a16_bf16:2,8,1,1,0,2,2@down@1 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@down@16 w4a16_bf16:2,16,1,1,0,2,2@qkv@1 w4a16_bf16:2,8,1,2,0,2,2@qkv@16 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,8,1,1,0,2,2@o@1" timeout 330 bash scripts/device/ab_define.sh > $OUT/ab-run.txt 2>&1
R4_SR_CONFIGS="w4a16_bf16:2,4,1,1,1,2,2@down@1 w4a8:2,2,1,2,0,2,2@gate_up@1 w4a8:2,2,1,1,0,2,2@gate_up@1@R4_MIN_BLOCKS=10 w4a8:2,2,1,2,0,2,2@gate_up@16 w4a8:8,1,3,2,1,1,4@gate_up@48" timeout 200 bash scripts/device/stall_reasons.sh > $OUT/sr-run.txt 2>&1
echo done
