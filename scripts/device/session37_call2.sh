#!/usr/bin/env bash
# Session 37, call 2: stream-K at two and three blocks per SM (SK 264 / 396, one consumer
# warpgroup, kernels/config.hpp kSm90aStreamK2/3) against call 9's M <= 32 winners of the same
# generation (the tail finding of call 1: gate_up's 272 CTAs leave 8 SMs a third block).
# r4kern --one: checked over poison first, then timed; GEMM alone is the first time of each.
# SK 264 / 396 were removed after this call (22a1e22); 3f380d7 has them, for a rerun.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for round in 1 2; do
    for c in mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,264,1,1,1,1,4@gate_up@1 mxfp4:4,264,1,1,1,1,6@gate_up@1 \
             mxfp4:4,264,1,1,0,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@16 mxfp4:4,264,1,1,1,1,4@gate_up@16 \
             w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,264,1,1,1,1,4@gate_up@16 w4a8:4,396,1,1,1,1,4@gate_up@16 \
             w4a8:4,396,1,1,1,1,6@gate_up@16 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,264,1,1,1,1,4@gate_up@1 \
             w4a8:4,396,1,1,1,1,4@gate_up@1 w4a8fp8:4,1,1,1,0,1,4@gate_up@16 w4a8fp8:4,264,1,1,1,1,4@gate_up@16 \
             w4a8fp8:4,396,1,1,1,1,4@gate_up@16 w4a8:4,1,2,1,1,1,4@gate_up@32 w4a8:4,264,2,1,1,1,4@gate_up@32 \
             w4a8:4,396,2,1,1,1,4@gate_up@32; do
      IFS=@ read -r cfg shape m <<<"$c"
      r4_one $cfg $shape $m
    done
  done
  for c in mxfp4:4,4,1,1,1,1,6@down@16 mxfp4:4,264,1,1,1,1,4@down@16 mxfp4:4,264,1,1,1,1,6@down@16 \
           w4a8:4,4,1,1,1,1,8@down@16 w4a8:4,264,1,1,1,1,4@down@16 w4a8:4,396,1,1,1,1,4@down@16 \
           w4a8:4,396,1,1,1,1,8@down@16 w4a8fp8:4,4,1,1,1,1,4@down@16 w4a8fp8:4,396,1,1,1,1,4@down@16 \
           w4a8fp8:4,8,1,1,1,1,4@qkv@16 w4a8fp8:4,264,1,1,1,1,4@qkv@16 w4a8fp8:4,396,1,1,1,1,4@qkv@16 \
           mxfp4:4,4,1,1,1,1,6@qkv@16 mxfp4:4,264,1,1,1,1,6@qkv@16 \
           w4a8:4,1,1,1,1,1,8@o@16 w4a8:4,264,1,1,1,1,8@o@16 w4a8:4,396,1,1,1,1,8@o@16 \
           mxfp4:4,1,1,1,1,1,8@o@16 mxfp4:4,264,1,1,1,1,8@o@16 \
           w4a8:4,8,1,1,1,1,6@kernel_proj@16 w4a8:4,264,1,1,1,1,6@kernel_proj@16 w4a8:4,396,1,1,1,1,6@kernel_proj@16 \
           w4a8:4,16,1,1,1,1,6@hidden_proj@16 w4a8:4,264,1,1,1,1,6@hidden_proj@16 \
           w4a16_bf16:4,264,1,1,1,1,4@gate_up@1 w4a16_bf16:4,396,1,1,1,1,4@gate_up@1 w4a16_bf16:4,396,1,1,1,1,4@down@1; do
    IFS=@ read -r cfg shape m <<<"$c"
    r4_one $cfg $shape $m
  done
} 2>&1 | tee -a "$OUT/runs.log"
