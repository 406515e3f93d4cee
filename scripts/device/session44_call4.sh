#!/usr/bin/env bash
# Session 44, call 4, on the branch exp/balanced-pdl (balanced grids under PDL up to M = 8, every
# kernel with the largest shared-memory carveout): every gpu-labelled binary (the verifier's
# pairs, the PDL step chains and r4d's graph chains now launch balanced links at M <= 8 under
# PDL), then three balanced pairs as a race times them (now under PDL at these M).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
bash scripts/device/gpu_tests.sh 2>&1 | tee -a "$OUT/runs.log"
{
  R4_ONE_LINES=6 r4_one w4a8:4,255,1,1,1,1,8 gate_up 1
  R4_ONE_LINES=6 r4_one w4a8:4,255,1,1,1,1,8 gate_up 8
  R4_ONE_LINES=6 r4_one w4a8fp8:4,255,1,1,1,1,4 gate_up 1
} 2>&1 | tee -a "$OUT/runs.log"
echo "wall ${SECONDS} s" | tee -a "$OUT/runs.log"
