#!/usr/bin/env bash
# Session 38, call 2: the balanced grid with its split blocks first (r4g_bal) against SK 1, same
# tuple, two rounds alternating; what decides is the pair under PDL and the race's time (call 1:
# whole blocks first won alone, 24.05 -> 19.74 us MXFP4 gate_up M = 1, and lost it under PDL,
# 24.80 -> 24.93). Then the acceptance run (scripts/device/acceptance.sh).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for round in 1 2; do
    echo "#### round $round"
    for c in mxfp4:4,@,1,1,1,1,4/gate_up/1 w4a8:4,@,1,1,1,1,4/gate_up/16 \
             w4a8fp8:4,@,1,1,1,1,4/gate_up/16 w4a16_bf16:4,@,1,1,1,1,4/gate_up/16 \
             w4a8:4,@,1,1,1,1,4/28672x4096/16; do
      IFS=/ read -r cfg shape m <<<"$c"
      for sk in 1 255; do r4_one "${cfg/@/$sk}" "$shape" "$m"; done
    done
  done
} 2>&1 | tee -a "$OUT/runs.log"
bash scripts/device/acceptance.sh 2>&1 | tee "$OUT/acceptance.log"
