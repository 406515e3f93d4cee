#!/usr/bin/env bash
# Session 35, call 4: the acceptance sweeps at the final commit (dflash cold and warm, llama3-8b
# cold: sweeps.sh), then the gpu-labelled binaries but r4d_launch_gpu_test (150 s; r4d is
# unchanged since call 2, where it passed), as far as the device time left allows. $OUT keeps at
# most 8 files: the sweeps' five and one log of the tests.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
R4_COLD_TIMEOUT=200 R4_LLAMA_TIMEOUT=150 timeout 330 bash scripts/device/sweeps.sh
echo "sweeps rc=$?"
for t in kernels_fp8_gemm_gpu_test kernels_quant_act_fp8_gpu_test kernels_gpu_check_test \
         tuner_gpu_runtime_test tuner_measure_pdl_gpu_test r4d_graph_gpu_test; do
  echo "== $t" >>"$OUT/gtests.log"
  timeout 100 $B/$t --gtest_brief=1 >/tmp/t.log 2>&1
  echo "$t rc=$?"; cat /tmp/t.log >>"$OUT/gtests.log"; grep -E "PASSED|FAILED" /tmp/t.log | head -2
done
