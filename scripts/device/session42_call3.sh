#!/usr/bin/env bash
# Session 42, call 3: what a cheap int4 -> e4m3 conversion would leave at M <= 16, after calls 1-2
# found the zero point through a second wgmma per k-step (R4G_ZPW) slower. r4kern --one, GEMM alone,
# two rounds alternating, on the w4a8fp8 winners of the committed H200 tables: as is (checked over
# poison first), lesion 128 (the biased bytes in 3 instructions per 8 weights, no zero point: the
# bound on a conversion whose zero point came from the activations' group sums), lesion 32 (no
# conversion at all: the raw words into the wgmmas) and lesion 2 (no math); w4a8 (int8, 2
# instructions per 8 weights) beside it. SASS loop sizes of the gate_up tuple as is and with 128.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
(
  for l in 0 128; do
    r4_sass w4a8fp8_4_255_1_1_1_4_lesion$l gemm_w4a8fp8_nt 4,255,1,1,1,1,4 -DR4G_LESION=$l
  done
  tar -czf "$OUT/sass.tar.gz" -C /tmp/sass .
) >/tmp/sass.log 2>&1 &
sass_pid=$!
{
  for round in 1 2; do
    echo "#### round $round"
    for c in 4,255,1,1,1,1,4/gate_up/16 4,255,1,1,1,1,4/gate_up/1 4,255,1,1,1,1,4/28672x4096/16 \
             4,4,1,1,1,1,4/down/16 4,8,1,1,1,1,4/qkv/16 8,132,4,1,1,1,4/gate_up/64; do
      IFS=/ read -r t shape m <<<"$c"
      r4_one "w4a8fp8:$t" "$shape" "$m"
      r4_one "w4a8fp8:$t" "$shape" "$m" R4G_LESION=128
      r4_one "w4a8fp8:$t" "$shape" "$m" R4G_LESION=32
      r4_one "w4a8fp8:$t" "$shape" "$m" R4G_LESION=2
    done
    r4_one w4a8:4,255,1,1,1,1,4 gate_up 16
    r4_one w4a8:4,255,1,1,1,1,4 28672x4096 16
  done
} 2>&1 | tee -a "$OUT/runs.log"
wait $sass_pid
cat /tmp/sass.log >>"$OUT/runs.log"
