#!/usr/bin/env bash
# A kernel experiment on the H200 in one device call (session 9: the ldg variants): the GPU
# checks that launch ldg configs, a dflash sweep from a cold database (sweeps.sh: the fixture's
# recipe, winners and per-shape times), and Nsight Compute (stalls.sh) on R4_NCU_CONFIGS
# ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ...", r4kern --one). Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/ring.log"
{
  date -u
  for t in kernels_gpu_check_test kernels_fp8_gemm_gpu_test; do
    s=$(date +%s)
    timeout 200 $B/$t --gtest_brief=1 >"$OUT/$t.log" 2>&1
    echo "$t rc=$? in $(( $(date +%s) - s )) s"; grep -E "FAILED|Failure|Which is|PASSED" "$OUT/$t.log" | head -8
  done
  bash "$(dirname "$0")/stalls.sh"  # ncu on R4_NCU_CONFIGS, if any
} >"$L" 2>&1
R4_SKIP_LLAMA=${R4_SKIP_LLAMA:-1} R4_SKIP_WARM=${R4_SKIP_WARM:-1} bash "$(dirname "$0")/sweeps.sh"
cat "$L"
