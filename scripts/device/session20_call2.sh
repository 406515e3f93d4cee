# Session 20, call 2 (binaries packed at e2d2bbe): the acceptance sweeps, then an A/B of the small
# ldg tuples' defaults (R4L_MIN_BLOCKS 10, and R4L_JIT_ACT for the 16-bit kinds) against the old
# launch (R4L_JIT_ACT=0 + R4L_MIN_BLOCKS=1) and against JIT alone.
set -u
bash scripts/device/sweeps.sh > $OUT/sweeps-stdout.txt 2>&1
R4_AB_SETS="R4L_JIT_ACT=0+R4L_MIN_BLOCKS=1|R4L_JIT_ACT=1+R4L_MIN_BLOCKS=1" R4_AB_CONFIGS="w4a16_bf16:2,2,1,1,0,2,2@gate_up@1 w4a16_bf16:2,2,1,1,0,2,2@gate_up@16 w4a16_bf16:2,1,1,1,0,2,2@gate_up@1 w4a16_bf16:2,4,1,1,0,2,2@down@1 w4a16_bf16:2,8,1,1,0,2,2@down@1 w4a16_bf16:2,8,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:2,16,1,1,0,2,2@qkv@1 w4a16_bf16:2,8,1,1,0,2,2@kernel_proj@16" timeout 150 bash scripts/device/ab_define.sh > /dev/null 2>&1
grep -E "wall|max \|diff" $OUT/sweeps.log; grep -v checked $OUT/ab.log | cut -c1-110
