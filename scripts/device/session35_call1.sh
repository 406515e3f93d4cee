#!/usr/bin/env bash
# Session 35, call 1 (branch mx90: gemm_mxfp4a8fp8_nt's sm90a generation). Correctness first:
# the fp8 GEMM GPU test (the new sm90a MXFP4 tuples at M = 1, 7, 33, 64 against the CPU reference,
# their broken-exponent twins must fail, and the tuner's Verifier) and quant_act_fp8's bit-exact
# test (the new ActOrder::sm90a_mx). Only if both pass: the acceptance call (sweeps: dflash cold
# and warm, llama3-8b cold; then every gpu-labelled binary). pack: scripts/device/pack.sh.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
ok=1
for t in kernels_fp8_gemm_gpu_test kernels_quant_act_fp8_gpu_test; do
  timeout 200 $B/$t --gtest_brief=1 >"$OUT/$t.log" 2>&1
  rc=$?
  echo "$t rc=$rc"
  grep -E "PASSED|FAILED|Failure|mxfp4.*sm90a" "$OUT/$t.log" | head -40
  [[ $rc == 0 ]] || ok=0
done
if [[ $ok != 1 ]]; then
  echo "a correctness test failed: no sweep"
  exit 1
fi
bash scripts/device/acceptance.sh
