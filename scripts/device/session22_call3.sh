# Session 22, call 3: why R4L_PRE slows the GEMM alone (calls 1-2: w4a8 (4, 2, 1, 1, 0, 2)
# gate_up M = 1 14.88 -> 16.18 us at R4L_PRE=4 R4L_PRE_TAIL=1). Nsight Compute on both
# (scripts/device/stalls.sh), and nvcc's sm_90a SASS of both builds under $OUT/sass-*.txt.
# (R4L_PRE, R4L_PRE_TAIL and R4L_PRE_DIAG exist only in kernels/nv/gemm_w4_ldg.h of 3860a1d..b3179c8:
# the experiment measured slower and was removed; docs/PERF.md "Session 22".)
set -u
source scripts/device/env.sh
R4_NCU_CONFIGS="w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@1@R4L_PRE=4+R4L_PRE_TAIL=1" \
  bash scripts/device/stalls.sh > $OUT/pre-ncu.txt 2>&1
cat $OUT/pre-ncu.txt | cut -c1-150
d="-DR4_WV=4 -DR4_SK=2 -DR4_MB=1 -DR4_NPW=1 -DR4_NT=0 -DR4_GEN=2 -DR4_ST=2"
nvcc -arch=sm_90a -cubin -I . $d -o $OUT/base.cubin kernels/gemm_w4a8_nt.cu &&
  cuobjdump -sass $OUT/base.cubin > $OUT/sass-base.txt
nvcc -arch=sm_90a -cubin -I . $d -DR4L_PRE=4 -DR4L_PRE_TAIL=1 -o $OUT/pre.cubin kernels/gemm_w4a8_nt.cu &&
  cuobjdump -sass $OUT/pre.cubin > $OUT/sass-pre4tail.txt
rm -f $OUT/*.cubin
wc -l $OUT/sass-*.txt
