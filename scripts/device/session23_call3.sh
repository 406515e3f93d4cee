# Session 23, call 3 (branch exp/wait-use; its kernels default to R4L_WAIT_FENCE 0, i.e. main's):
# R4L_WAIT_FENCE 2 makes the never-run shared store use every weight and scale dword of the
# prologue's batch, so that ptxas cannot sink those loads below the PDL wait (with 1 it did, call
# 1); activations and row scales coherent (R4L_DEP_LD) in both. SASS first (nothing but .CONSTANT
# loads may precede the wait), then race-style A/B: default, FENCE 2, FENCE 1.
set -u
R4_SW_DEFINES="-DR4L_WAIT_FENCE=2|-DR4L_WAIT_FENCE=1" R4_SW_CONFIGS="gemm_w4a8_nt:4,2,1,1,0,2,2 gemm_w4a8_nt:2,4,1,1,0,2,2 gemm_w4a8_nt:4,8,1,2,1,2,2 gemm_w4a8_nt:4,16,1,1,1,2,4 gemm_mxfp4a8fp8_nt:4,8,1,1,1,2,4 gemm_w4a8fp8_nt:4,8,1,1,1,2,2" \
  timeout 120 bash scripts/device/sass_wait.sh > $OUT/sass-wait.txt 2>&1
cat $OUT/sass-wait.txt
R4_AB_SETS="R4L_WAIT_FENCE=2|R4L_WAIT_FENCE=1" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@8 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:4,8,1,2,1,2,2@kernel_proj@64 mxfp4:4,8,1,1,1,2,4@qkv@16 w4a8fp8:4,8,1,1,1,2,2@gate_up@1" \
  timeout 300 bash scripts/device/ab_define.sh > $OUT/use-ab.txt 2>&1
grep -E "us \(|race" $OUT/use-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-150
