# Session 22, call 5: call 4 found the GEMM alone unchanged with only R4L_PRE's static shared
# slots (R4L_PRE_DIAG=3) but the quant_act + GEMM pair under PDL 0.2-0.4 us faster (gate_up M = 1,
# down M = 16, o_proj M = 64). Is it repeatable, and does it depend on the slots' size (2, 4, 8
# blocks: 6, 12, 24 KiB at WV 4, NPW 1)? More w4a8 pair configs (M = 1..64).
# (R4L_PRE, R4L_PRE_TAIL and R4L_PRE_DIAG exist only in kernels/nv/gemm_w4_ldg.h of 3860a1d..b3179c8:
# the experiment measured slower and was removed; docs/PERF.md "Session 22".)
set -u
R4_AB_SETS="R4L_PRE=2+R4L_PRE_TAIL=1+R4L_PRE_DIAG=3|R4L_PRE=4+R4L_PRE_TAIL=1+R4L_PRE_DIAG=3|R4L_PRE=8+R4L_PRE_TAIL=1+R4L_PRE_DIAG=3" R4_AB_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@8 w4a8:2,4,1,1,0,2,2@down@16 w4a8:4,16,1,1,1,2,4@hidden_proj@1 w4a8:2,4,1,2,0,2,2@qkv@48 w4a8:4,2,1,2,1,2,2@o@64 w4a8:4,8,1,2,1,2,2@kernel_proj@64 w4a8:4,1,1,2,0,2,2@gate_up@32" \
  bash scripts/device/ab_define.sh > $OUT/pre-slots-ab.txt 2>&1
grep -E "PDL|race" $OUT/pre-slots-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/ R4L_PRE_TAIL=1 R4L_PRE_DIAG=3//' | cut -c1-150
