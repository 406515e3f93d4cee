# Session 22, call 1: R4L_PRE (kernels/nv/gemm_w4_ldg.h: the R4L_PRE 64-K blocks after the first
# batch copied into shared memory before the PDL wait) at 4 and 8 blocks, against the define
# unset, on the w4a8 ldg winners of the committed fixture (M = 1..64) and one w4a16 config (no
# quantiser: what the copies cost a GEMM alone). r4kern --one: every config checked against the
# GPU reference over poison first; GEMM alone, the hot pair, and the race-style line.
# (R4L_PRE, R4L_PRE_TAIL and R4L_PRE_DIAG exist only in kernels/nv/gemm_w4_ldg.h of 3860a1d..b3179c8:
# the experiment measured slower and was removed; docs/PERF.md "Session 22".)
set -u
R4_AB_SETS="R4L_PRE=4|R4L_PRE=8" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@8 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@qkv@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,1,1,2,0,2,2@gate_up@32 w4a8:2,4,1,2,0,2,2@qkv@48 w4a8:4,4,1,2,0,2,2@qkv@64 w4a8:8,2,1,1,0,2,2@o@48 w4a8:4,2,1,2,1,2,2@o@64 w4a8:8,8,1,2,0,2,4@kernel_proj@48 w4a8:4,8,1,2,1,2,2@kernel_proj@64 w4a8:4,2,1,2,0,2,4@down@48 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,4,1,1,0,2,2@o@16" \
  bash scripts/device/ab_define.sh > $OUT/pre-ab.txt 2>&1
grep -E "us \(|PDL|race" $OUT/pre-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-160
