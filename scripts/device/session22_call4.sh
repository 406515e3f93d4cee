# Session 22, call 4: what R4L_PRE costs the GEMM alone, in parts (R4L_PRE_DIAG, with
# R4L_PRE=4 R4L_PRE_TAIL=1): 3 = the 12 KiB of static shared slots only (ncu, call 3: the
# shared-memory carveout 65.5 -> 135 KiB); 2 = the slots and the main loop's branch, no copies.
# (R4L_PRE, R4L_PRE_TAIL and R4L_PRE_DIAG exist only in kernels/nv/gemm_w4_ldg.h of 3860a1d..b3179c8:
# the experiment measured slower and was removed; docs/PERF.md "Session 22".)
set -u
R4_AB_SETS="R4L_PRE=4+R4L_PRE_TAIL=1+R4L_PRE_DIAG=3|R4L_PRE=4+R4L_PRE_TAIL=1+R4L_PRE_DIAG=2" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@qkv@16 w4a8:4,2,1,2,1,2,2@o@64" \
  bash scripts/device/ab_define.sh > $OUT/pre-diag-ab.txt 2>&1
grep -E "us \(|PDL|race" $OUT/pre-diag-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' -e 's/ ([0-9]* GB\/s)//' | cut -c1-150
