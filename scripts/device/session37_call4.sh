#!/usr/bin/env bash
# Session 37, call 4: why split-K's bare ring is slow on gate_up (call 1: (4, 2, 1, 1, 1, 4)
# without the math 24.67 us against SK 1's 17.42): the same tuples without the math (lesion 2)
# and without the math and the epilogue (lesion 6: no output or partial stores, no reduction),
# for the design of a balanced grid (whole-K tiles plus a split remainder).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for sk in 1 2 4; do
    for l in 2 6; do
      r4_one mxfp4:4,$sk,1,1,1,1,4 gate_up 1 R4G_LESION=$l
      r4_one w4a8:4,$sk,1,1,1,1,4 gate_up 16 R4G_LESION=$l
    done
  done
  r4_one w4a8:4,2,1,1,1,1,4 16896x5120 16 R4G_LESION=2
  r4_one w4a8:4,2,1,1,1,1,4 16896x5120 16 R4G_LESION=6
  r4_one w4a8:4,2,1,1,1,1,4 16896x5120 16
} 2>&1 | tee -a "$OUT/runs.log"
