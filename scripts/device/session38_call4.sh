#!/usr/bin/env bash
# Session 38, call 4: the balanced grid as it lands (whole blocks first, launched without PDL:
# kernels/config.hpp pdl_allowed) against SK 1 of the same tuple, as a race times it; then the
# acceptance run (scripts/device/acceptance.sh: dflash cold and warm, llama3-8b cold, every
# gpu-labelled binary).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for c in mxfp4:4,@,1,1,1,1,4/gate_up/1 w4a8fp8:4,@,1,1,1,1,4/gate_up/16 \
           w4a8:4,@,1,1,1,1,4/gate_up/16 w4a16_bf16:4,@,1,1,1,1,4/gate_up/1 \
           w4a16_bf16:4,@,1,1,1,1,4/gate_up/16 mxfp4:4,@,1,1,1,1,4/28672x4096/1; do
    IFS=/ read -r cfg shape m <<<"$c"
    for sk in 1 255; do r4_one "${cfg/@/$sk}" "$shape" "$m"; done
  done
} 2>&1 | tee -a "$OUT/runs.log"
bash scripts/device/acceptance.sh 2>&1 | tee "$OUT/acceptance.log"
