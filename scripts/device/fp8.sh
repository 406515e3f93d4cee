#!/usr/bin/env bash
# Issue 13 on the H200 (through the device tool), binaries built here carried in .device/bin
# (scripts/device/pack.sh): the fp8-activation GEMMs' gpu-labelled checks first (CPU reference,
# odd M, broken kernels must fail; a failure stops the call with the SASS of one config of each),
# then the register / spill report of every config through `r4tune sweep --compile-only`, then
# scripts/device/sweeps.sh (dflash cold + warm, llama3-8b cold unless R4_SKIP_LLAMA=1), whose
# specs race the fp8 GEMMs beside the int4 pair. Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/fp8.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  failed=0
  for t in kernels_fp8_gemm_gpu_test kernels_quant_act_fp8_gpu_test kernels_gpu_check_test; do
    timeout 240 $B/$t 2>&1 | grep -vE "^\[ +(RUN|OK) " | tail -60; rc=${PIPESTATUS[0]}
    echo "$t rc=$rc"
    [[ $rc == 0 ]] || failed=1
  done
  # The SASS opcode mix of one ldg config of each fp8 kernel and of gemm_w4a8_nt (int8) beside it:
  # what mma.sync .e4m3 becomes on sm_90 (and the whole SASS of the first, for reading).
  mkdir -p /tmp/src && tar -xf $B/src.tar -C /tmp/src
  for k in gemm_w4a8fp8_nt gemm_mxfp4a8fp8_nt gemm_w4a8_nt; do
    nvcc -arch=sm_90 -std=c++17 -I/tmp/src -cubin -o "/tmp/$k.cubin" -DR4_WAVE=32 -DR4_GEN=2 \
      -DR4_ST=4 -DR4_WV=4 -DR4_SK=1 -DR4_MB=1 -DR4_NPW=1 -DR4_NT=0 -x cu "/tmp/src/kernels/$k.cu" &&
      cuobjdump -sass "/tmp/$k.cubin" >"/tmp/$k.sass"
    echo "== SASS opcodes, $k ldg(4, 1, 1, 1, 0, 4), sm_90"
    grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z0-9_.]+" "/tmp/$k.sass" | awk '{print $2}' | sort | uniq -c | sort -rn | head -14
  done
  cp /tmp/gemm_w4a8fp8_nt.sass "$OUT/"
} >"$L" 2>&1
cat "$L" | tail -80
[[ $failed == 1 ]] && exit 1
[[ ${R4_SKIP_SWEEPS:-0} == 1 ]] || bash "$(dirname "$0")/sweeps.sh"
