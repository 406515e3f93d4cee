#!/usr/bin/env bash
# Session 44, call 3, at the final kernels (69635d6's; R4G_KDUAL and R4_QA_TRIGGER reverted):
# every gpu-labelled binary, then the rest of the map call 2 began: the balanced pairs as a race
# times them, plain and under PDL forced, with every kernel asking for the largest shared-memory
# carveout (R4_EXP_CARVEOUT=100; call 2: w4a8 gate_up M = 1 / 8 -1.1 us, MXFP4 M = 1 -0.95,
# w4a8 M = 16 +0.2, w4a8fp8 M = 16 +4.4 against plain).
set -u
source "$(dirname "$0")/env.sh"
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)
echo "$gpu" | tee "$OUT/runs.log"
bash scripts/device/gpu_tests.sh 2>&1 | tee -a "$OUT/runs.log"
grep "max err/tol" "$OUT/gtests.log" | sort | uniq | tee -a "$OUT/runs.log"
{
  echo "#### balanced pairs, R4_EXP_CARVEOUT=100"
  for c in w4a8fp8:4,255,1,1,1,1,4/gate_up/1 w4a8fp8:4,255,1,1,1,1,4/gate_up/8 \
           mxfp4:4,255,1,1,1,1,8/gate_up/8 mxfp4:4,255,1,1,1,1,8/gate_up/16 \
           w4a8:4,255,1,1,1,1,8/gate_up/4 w4a8:4,255,1,1,1,1,8/28672x4096/1 \
           w4a8fp8:4,255,1,1,1,1,4/28672x4096/16; do
    IFS=/ read -r t shape m <<<"$c"
    R4_EXP_CARVEOUT=100 R4_ONE_LINES=6 r4_one "$t" "$shape" "$m"
  done
} 2>&1 | tee -a "$OUT/runs.log"
echo "wall ${SECONDS} s" | tee -a "$OUT/runs.log"
