#!/usr/bin/env bash
# Session 43, call 2: R4G_ZSUM reverted (the tree's kernels are a66d05c's again); every
# gpu-labelled binary (gpu_tests.sh), the fp8 GEMM check now with every third activation row off
# zero mean, which the signed int4 x e4m3 path must pass as the ldg generation did in call 1.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
bash scripts/device/gpu_tests.sh 2>&1 | tee -a "$OUT/runs.log"
grep "max err/tol" "$OUT/gtests.log" | sort | uniq | tee -a "$OUT/runs.log"
