#!/usr/bin/env bash
# Session 36, call 9: R4G_SC_EARLY on by default (the one-byte sm90a kinds): the dflash sweep from
# a cold database (every config verified over poison first; the step and the per-shape winners),
# then the quick gpu-labelled binaries (the fp8 GEMMs' sm90a tuples and broken twins, the int4
# check, r4d's graph test with its nvcc-built kernels), as far as the device time left allows.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
R4_SKIP_WARM=1 R4_SKIP_LLAMA=1 R4_COLD_TIMEOUT=200 timeout 240 bash scripts/device/sweeps.sh
echo "sweeps rc=$?"
for t in kernels_fp8_gemm_gpu_test kernels_gpu_check_test r4d_graph_gpu_test; do
  echo "== $t" >>"$OUT/gtests.log"
  timeout 80 $B/$t --gtest_brief=1 >/tmp/t.log 2>&1
  echo "$t rc=$?"; cat /tmp/t.log >>"$OUT/gtests.log"; grep -E "PASSED|FAILED" /tmp/t.log | head -2
done
