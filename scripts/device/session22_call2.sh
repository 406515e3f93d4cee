# Session 22, call 2: R4L_PRE with R4L_PRE_TAIL=1 (the split's LAST blocks copied into shared
# memory before the PDL wait; call 1's leading blocks left each warp a round trip with nothing in
# flight) at 4 and 8 blocks, against the define unset. r4kern --one as in call 1.
# (R4L_PRE, R4L_PRE_TAIL and R4L_PRE_DIAG exist only in kernels/nv/gemm_w4_ldg.h of 3860a1d..b3179c8:
# the experiment measured slower and was removed; docs/PERF.md "Session 22".)
set -u
R4_AB_SETS="R4L_PRE=4+R4L_PRE_TAIL=1|R4L_PRE=8+R4L_PRE_TAIL=1" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@8 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@qkv@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:2,4,1,2,0,2,2@qkv@48 w4a8:4,2,1,2,1,2,2@o@64 w4a8:4,8,1,2,1,2,2@kernel_proj@64 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,4,1,1,0,2,2@o@16" \
  bash scripts/device/ab_define.sh > $OUT/pre-tail-ab.txt 2>&1
grep -E "us \(|PDL|race" $OUT/pre-tail-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-150
