#!/usr/bin/env bash
# Session 38, call 3: the balanced grid's block order and the PDL trigger. Call 1 (whole blocks
# first): GEMM alone 24.05 -> 19.74 us (MXFP4 gate_up M = 1), but after quant_act under PDL 24.80 ->
# 24.93, while the plain pair (no PDL) was 21.31. Call 2 (split blocks first): alone 24.0-24.7.
# Here: whole blocks first with the trigger at exit (R4_PDL_TRIGGER=0: the next kernel's blocks
# then take SMs as a fresh grid's do) and after the main loop (2, the default), against SK 1.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for round in 1 2; do
    echo "#### round $round"
    for c in mxfp4:4,@,1,1,1,1,4/gate_up/1 w4a8:4,@,1,1,1,1,4/gate_up/16 \
             w4a8fp8:4,@,1,1,1,1,4/gate_up/16 w4a8:4,@,1,1,1,1,4/28672x4096/16; do
      IFS=/ read -r cfg shape m <<<"$c"
      r4_one "${cfg/@/1}" "$shape" "$m"
      r4_one "${cfg/@/1}" "$shape" "$m" R4_PDL_TRIGGER=0
      r4_one "${cfg/@/255}" "$shape" "$m" R4G_BAL_SPLIT_FIRST=0
      r4_one "${cfg/@/255}" "$shape" "$m" R4G_BAL_SPLIT_FIRST=0 R4_PDL_TRIGGER=0
    done
  done
} 2>&1 | tee -a "$OUT/runs.log"
