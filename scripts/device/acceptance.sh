#!/usr/bin/env bash
# An acceptance call at a commit that changes kernels (through the device tool; pack:
# scripts/device/pack.sh, carry [".device/bin"]): the sweeps (dflash cold and warm, llama3-8b cold;
# sweeps.sh), then every gpu-labelled binary (gpu_tests.sh). About 300 s on an H100.
set -u
source "$(dirname "$0")/env.sh"
echo "== sweeps (dflash cold, warm; llama3-8b cold)"
R4_COLD_TIMEOUT=200 R4_LLAMA_TIMEOUT=150 timeout 330 bash scripts/device/sweeps.sh
echo "sweeps rc=$?"
echo "== gpu-labelled tests"
timeout 250 bash scripts/device/gpu_tests.sh
echo "gpu tests rc=$?"
