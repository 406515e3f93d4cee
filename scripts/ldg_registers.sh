#!/bin/bash
# The registers and spills ptxas gives the ldg generation (kernels/nv/gemm_w4_ldg.h, as in the tree) per
# (MB, NPW, ST), WV 4, SK 2, NVRTC for sm_90a, through `r4tune compile` (no GPU needed): the
# evidence for kLdgRegisterBudget in kernels/config.hpp. Prints: kernel mb npw st regs spill.
set -euo pipefail
cd "$(dirname "$0")/.."
R4TUNE=${R4TUNE:-build/tuner/r4tune}
for k in "gemm_w4a16_nt -D R4_A_BF16=1" "gemm_w4a8_nt" "gemm_w4a8fp8_nt" "gemm_mxfp4a8fp8_nt"; do
  set -- $k
  f=$1
  shift
  for mb in 1 2; do for npw in 1 2 4; do for st in 2 4 8; do
    out=$($R4TUNE compile kernels/$f.cu --arch sm_90a -q -D R4_GEN=2 -D R4_ST=$st -D R4_WV=4 \
      -D R4_SK=2 -D R4_MB=$mb -D R4_NPW=$npw -D R4_NT=0 -D R4_WAVE=32 "$@" -I . 2>&1 | grep "^$f ")
    echo "$f mb=$mb npw=$npw st=$st $(echo $out | awk '{print "regs="$2" spill="$3}')"
  done; done; done
done
