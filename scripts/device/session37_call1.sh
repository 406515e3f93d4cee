#!/usr/bin/env bash
# Session 37, call 1: (a) SASS of the MXFP4 / w4a8 (4, 1, 1, 1, 1, 1, 4) consumers as is, without
# the promotion (R4G_LESION=64) and with two stages per iteration (R4G_PAIR=1), from cubins built
# by nvcc 13.0 on the dev machine (.device/bin/sass); (b) session 36's call 11 (gate_up's 272 CTAs
# against 16896 x 5120's 264 and 8448 x 5120's 132, with and without the math); (c) R4G_PAIR 1 / 2
# against the base. r4kern --one: every run but a lesion is checked over poison first.
# R4G_PAIR was removed after this call (1aab76f); 20de30b has it, for a rerun.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
for f in $B/sass/*.cubin; do echo "=== $(basename $f)"; cuobjdump -sass "$f"; done >"$OUT/sass.txt" 2>&1
{
  for shape in gate_up 16896x5120 8448x5120; do
    r4_one mxfp4:4,1,1,1,1,1,4 $shape 1
    r4_one mxfp4:4,1,1,1,1,1,4 $shape 1 R4G_LESION=2
    r4_one mxfp4:4,1,1,1,1,1,4 $shape 1 R4G_PAIR=1
    r4_one mxfp4:4,1,1,1,1,1,4 $shape 1 R4G_PAIR=2
    r4_one w4a8:4,1,1,1,1,1,4 $shape 16
    r4_one w4a8:4,1,1,1,1,1,4 $shape 16 R4G_LESION=2
    r4_one w4a8:4,1,1,1,1,1,4 $shape 16 R4G_PAIR=1
    r4_one w4a8:4,1,1,1,1,1,4 $shape 16 R4G_PAIR=2
    r4_one w4a8fp8:4,1,1,1,1,1,4 $shape 16
    r4_one w4a8fp8:4,1,1,1,1,1,4 $shape 16 R4G_LESION=2
    r4_one w4a8fp8:4,1,1,1,1,1,4 $shape 16 R4G_PAIR=1
  done
  for c in mxfp4:4,1,1,1,1,1,8@16896x5120@1 w4a8:4,1,1,1,1,1,8@gate_up@16 mxfp4:4,4,1,1,1,1,4@down@16 \
           mxfp4:4,1,1,1,1,1,4@o@16 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8fp8:8,4,1,1,1,1,4@gate_up@16; do
    IFS=@ read -r cfg shape m <<<"$c"
    r4_one $cfg $shape $m
    r4_one $cfg $shape $m R4G_PAIR=1
  done
  for sk in 2 4; do  # more, shorter chains per SM (split-K): is the time the chains' length?
    r4_one mxfp4:4,$sk,1,1,1,1,4 gate_up 1
    r4_one mxfp4:4,$sk,1,1,1,1,4 gate_up 1 R4G_LESION=2
    r4_one w4a8:4,$sk,1,1,1,1,4 gate_up 16
    r4_one w4a8:4,$sk,1,1,1,1,4 gate_up 16 R4G_LESION=2
  done
  r4_one mxfp4:4,1,1,1,1,1,4 gate_up 1
  r4_one mxfp4:4,1,1,1,1,1,4 16896x5120 1 R4G_PAIR=1
  r4_one w4a8:4,1,1,1,1,1,4 gate_up 16
  r4_one w4a8:4,1,1,1,1,1,4 gate_up 16 R4G_PAIR=1
} 2>&1 | tee -a "$OUT/runs.log"
