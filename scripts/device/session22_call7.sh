# Session 22, call 7: call 6 found the 8 KiB pad (R4L_SMEM_PAD) without effect, while calls 4-5's
# R4L_PRE_DIAG=3 build (which also had a never-taken shared store between the prologue's loads and
# the PDL wait) shortened the w4a8 pairs by ~0.45 us; call 3's SASS shows why: ptxas put
# griddepcontrol.wait (ACQBULK) first, before every weight load. Here: where the wait lands for
# each R4L_WAIT_FENCE (scripts/device/sass_wait.sh), and the pair / race-style times of each.
# (Values 2 and 3 exist only in 3158311's kernels/nv/gemm_w4_ldg.h; the final header keeps 0 and 1.)
set -u
R4_SW_DEFINES="-DR4L_WAIT_FENCE=0|-DR4L_WAIT_FENCE=1|-DR4L_WAIT_FENCE=2|-DR4L_WAIT_FENCE=3" R4_SW_CONFIGS="gemm_w4a8_nt:4,2,1,1,0,2,2 gemm_w4a8_nt:2,4,1,1,0,2,2 gemm_w4a8_nt:4,8,1,2,1,2,2 gemm_w4a16_nt:2,16,1,1,1,2,4:-DR4_A_BF16=1 gemm_mxfp4a8fp8_nt:4,8,1,1,1,2,4 gemm_w4a8fp8_nt:4,8,1,1,1,2,2 gemm_w4a8_nt:8,1,4,2,1,1,4" \
  bash scripts/device/sass_wait.sh > $OUT/sass-wait.txt 2>&1
cat $OUT/sass-wait.txt
R4_AB_SETS="R4L_WAIT_FENCE=0|R4L_WAIT_FENCE=2|R4L_WAIT_FENCE=3" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,8,1,2,1,2,2@kernel_proj@64 mxfp4:4,8,1,1,1,2,4@qkv@16 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1" \
  timeout 240 bash scripts/device/ab_define.sh > $OUT/fence-ab.txt 2>&1
grep -E "us \(|PDL|race" $OUT/fence-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-150
