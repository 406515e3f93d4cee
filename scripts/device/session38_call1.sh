#!/usr/bin/env bash
# Session 38, call 1: the balanced grid (SK 255, kernels/config.hpp balanced) against SK 1, same
# tuple, GEMM alone (r4kern --one: checked over poison first), two rounds alternating; 128-row
# tiles and M >= 32 against stream-K; odd M; its lesion without the math. Then the new GPU check
# (kernels_gpu_check_test: BalancedGridMatchesCpuReference) and the dflash cold sweep, which races it.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for round in 1 2; do
    echo "#### round $round"
    for c in mxfp4:4,@,1,1,1,1,4/gate_up/1 w4a8:4,@,1,1,1,1,4/gate_up/16 \
             w4a8fp8:4,@,1,1,1,1,4/gate_up/16 w4a16_bf16:4,@,1,1,1,1,4/gate_up/1 \
             w4a8:4,@,1,1,1,1,4/28672x4096/16 mxfp4:4,@,1,1,1,1,4/28672x4096/1; do
      IFS=/ read -r cfg shape m <<<"$c"
      for sk in 1 255; do r4_one "${cfg/@/$sk}" "$shape" "$m"; done
    done
  done
  echo "#### 128-row tiles, M >= 32, odd M, lesion"
  r4_one w4a8:8,1,1,1,1,1,4 gate_up 16
  r4_one w4a8:8,255,1,1,1,1,4 gate_up 16
  r4_one w4a8:4,255,1,2,1,1,4 gate_up 16
  r4_one w4a8:8,132,4,1,1,1,4 gate_up 64
  r4_one w4a8:8,255,4,1,1,1,4 gate_up 64
  r4_one w4a8fp8:8,132,2,1,1,1,4 gate_up 32
  r4_one w4a8fp8:8,255,2,1,1,1,4 gate_up 32
  r4_one w4a8fp8:4,255,2,1,1,1,4 gate_up 32
  r4_one mxfp4:4,255,1,1,1,1,4 gate_up 7
  r4_one w4a8fp8:4,255,3,1,1,1,4 gate_up 33
  r4_one mxfp4:4,255,1,1,1,1,4 gate_up 1 R4G_LESION=2
  r4_one mxfp4:4,1,1,1,1,1,4 gate_up 1 R4G_LESION=2
} 2>&1 | tee -a "$OUT/runs.log"
{
  echo "== kernels_gpu_check_test"
  timeout 120 $B/kernels_gpu_check_test 2>&1 | tail -8
} 2>&1 | tee "$OUT/gpucheck.log"
R4_SKIP_WARM=1 R4_SKIP_LLAMA=1 R4_COLD_TIMEOUT=240 timeout 300 bash scripts/device/sweeps.sh
