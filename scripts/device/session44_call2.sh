#!/usr/bin/env bash
# Session 44, call 2. Call 1 (H100) ran R4G_KDUAL without the scale chunks, which by themselves
# are worth ~3 us of gate_up's ring (session 26): this is KDUAL with them (the chunk entries are
# safe, kernels/nv/gemm_w4_sm90a.h), against the kernel as built. Then the balanced pairs under
# PDL forced (call 1: w4a8 gate_up M = 1 -0.5 us, M = 16 +0.45, 28672 x 4096 M = 16 -1.9 against
# plain), with and without every kernel asking for the largest shared-memory carveout. On an H200
# only: lesions of the balanced winners, then every gpu-labelled binary.
# It ran at ce354dc; R4G_KDUAL was removed in 42347c4.
set -u
source "$(dirname "$0")/env.sh"
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)
echo "$gpu" | tee "$OUT/runs.log"
one() { R4_ONE_LINES=6 r4_one "$@"; }  # every result line (a balanced pair prints six)
{
  echo "#### kdual with scale chunks"
  for c in w4a8:4,255,1,1,1,1,8/gate_up/16 w4a8fp8:4,255,1,1,1,1,4/gate_up/16 \
           mxfp4:4,255,1,1,1,1,8/gate_up/1 w4a8:4,255,1,1,1,1,8/28672x4096/16; do
    IFS=/ read -r t shape m <<<"$c"
    one "$t" "$shape" "$m"
    one "$t" "$shape" "$m" R4G_KDUAL=1
  done
  # Every kernel asks for the largest shared-memory carveout (R4_EXP_CARVEOUT=100, the CUDA
  # backend): if a quantiser's block keeps its SM from taking the GEMM's blocks under PDL until it
  # drains (its carveout being the driver's pick for a kernel of 32 B of shared memory), the
  # balanced pairs under PDL forced should then beat them plain at every M.
  echo "#### carveout: unset, then 100"
  for c in w4a8:4,255,1,1,1,1,8/gate_up/1 w4a8:4,255,1,1,1,1,8/gate_up/8 \
           w4a8:4,255,1,1,1,1,8/gate_up/16 w4a8fp8:4,255,1,1,1,1,4/gate_up/16 \
           mxfp4:4,255,1,1,1,1,8/gate_up/1 w4a8:4,255,1,1,1,1,8/28672x4096/16 \
           w4a8:4,4,1,1,1,1,6/down/16; do
    IFS=/ read -r t shape m <<<"$c"
    one "$t" "$shape" "$m"
    echo "(R4_EXP_CARVEOUT=100)"
    R4_EXP_CARVEOUT=100 one "$t" "$shape" "$m"
  done
} 2>&1 | tee -a "$OUT/runs.log"
if ! echo "$gpu" | grep -q H200; then
  echo "not an H200: lesions and GPU tests left out; wall ${SECONDS} s" | tee -a "$OUT/runs.log"
  exit 0
fi
{
  echo "#### lesions (H200): 2 no math, 16 no wgmma, 32 no conversion, 64 no promotion"
  for l in 2 16 32 64; do r4_one w4a8fp8:4,255,1,1,1,1,4 gate_up 16 R4G_LESION=$l; done
  for l in 2 32; do r4_one w4a8:4,255,1,1,1,1,8 gate_up 16 R4G_LESION=$l; done
} 2>&1 | tee -a "$OUT/runs.log"
bash scripts/device/gpu_tests.sh 2>&1 | tee -a "$OUT/runs.log"
grep "max err/tol" "$OUT/gtests.log" | sort | uniq | tee -a "$OUT/runs.log"
echo "wall ${SECONDS} s" | tee -a "$OUT/runs.log"
