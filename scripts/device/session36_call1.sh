#!/usr/bin/env bash
# Session 36, call 1. On an H200: the acceptance sweeps and every gpu-labelled binary first
# (acceptance.sh; the committed fixture, tables and report are refreshed from its dflash run 1),
# then the A/B below if time is left. On an H100: the A/B alone, two rounds.
# The A/B: R4G_WGRP (kernels/nv/gemm_w4_sm90a.h, experiment, default 1): 2 or 4 consecutive
# groups of a 16-row tile per weight copy. r4kern --one: each run checked over poison first, then
# timed (GEMM alone, pair, race-style). Configs whose ST the value does not divide compile as
# WGRP 1: a control for the noise between runs.
set -u
source "$(dirname "$0")/env.sh"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "device: $name"
if [[ $name == *H200* ]]; then
  timeout 400 bash scripts/device/acceptance.sh
  rounds=1
else
  rounds=2
fi
for r in $(seq $rounds); do
  echo "== A/B R4G_WGRP base | 2 | 4, round $r"
  R4_AB_CONFIGS="mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@16 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,2,1,2,0,1,4@gate_up@1 mxfp4:4,4,1,1,1,1,4@down@16 w4a8:4,4,1,1,1,1,8@down@16 mxfp4:4,1,1,1,1,1,4@o@16 w4a8fp8:4,8,1,1,1,1,4@qkv@16 w4a8:4,16,1,1,1,1,8@hidden_proj@16 mxfp4:4,1,4,1,1,1,4@o@64 w4a8:4,1,2,1,1,1,6@o@32 w4a8fp8:4,8,1,1,1,1,6@kernel_proj@16" \
    R4_AB_SETS="R4G_WGRP=2|R4G_WGRP=4" timeout 280 bash scripts/device/ab_define.sh 2>&1
  [[ $r -lt $rounds ]] && cp "$OUT/ab.log" "$OUT/ab-round$r.log"
done
