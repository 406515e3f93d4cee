#!/usr/bin/env bash
# Session 37, call 3: (a) what stream-K at 264 blocks costs without the consumers' math (lesion 2,
# with call 2's r4kern, kept as .device/bin/r4kern_sk264: the config space no longer has SK 264),
# against SK 1 on gate_up and on 16896 x 5120; (b) the acceptance run at the final commit
# (scripts/device/acceptance.sh: dflash cold and warm, llama3-8b cold, every gpu-labelled binary).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for c in mxfp4:4,264,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@1 w4a8:4,264,1,1,1,1,4@gate_up@16 \
           w4a8:4,1,1,1,1,1,4@gate_up@16 mxfp4:4,264,1,1,1,1,4@16896x5120@1; do
    IFS=@ read -r cfg shape m <<<"$c"
    R4_ONE_BIN=r4kern_sk264 r4_one $cfg $shape $m
    R4_ONE_BIN=r4kern_sk264 r4_one $cfg $shape $m R4G_LESION=2
  done
} 2>&1 | tee -a "$OUT/runs.log"
bash scripts/device/acceptance.sh 2>&1 | tee "$OUT/acceptance.log"
