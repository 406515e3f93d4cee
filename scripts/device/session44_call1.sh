#!/usr/bin/env bash
# Session 44, call 1. (1) The quantiser's PDL trigger for the balanced grid (R4_QA_TRIGGER, an
# experiment define in kernels/quant_act.cu): the w4a8 balanced pairs plain, under PDL forced
# (r4kern's new line; the launchers never put SK 255 under PDL, session 38) with the trigger after
# the quantiser's wait (0, as built) and after its stores (1); a non-balanced PDL winner (down M = 16)
# beside them, whose pair the trigger also moves. (2) On an H200 only, time allowing: lesions of the
# balanced winners (where the consumers' time goes on the card whose ring is ~28% faster than the
# H100's; the GPU tests are a call of their own). r4kern --one; every unlesioned run is checked
# over poison first. (3) Two consumer warpgroups per balanced block (R4G_KDUAL), on either card.
# It ran at aeddc65; R4G_KDUAL and R4_QA_TRIGGER were removed in 42347c4.
set -u
source "$(dirname "$0")/env.sh"
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)
echo "$gpu" | tee "$OUT/runs.log"
one() { R4_ONE_LINES=6 r4_one "$@"; }  # every result line (a balanced pair prints six)
{
  for round in 1 2; do
    echo "#### trigger, round $round"
    for c in 4,255,1,1,1,1,8/gate_up/1 4,255,1,1,1,1,8/gate_up/16 4,4,1,1,1,1,6/down/16; do
      IFS=/ read -r t shape m <<<"$c"
      one "w4a8:$t" "$shape" "$m"
      one "w4a8:$t" "$shape" "$m" R4_QA_TRIGGER=1
    done
  done
} 2>&1 | tee -a "$OUT/runs.log"
{
  # (3) Two consumer warpgroups per balanced block on the same rows, alternate stages (R4G_KDUAL,
  # an experiment define; r4kern launches the extra warpgroup): as built against KDUAL, two rounds.
  for round in 1 2; do
    echo "#### kdual, round $round"
    for c in w4a8:4,255,1,1,1,1,8/gate_up/16 w4a8:4,255,1,1,1,1,8/gate_up/1 \
             w4a8:4,255,1,1,1,1,8/28672x4096/16 w4a8:4,255,2,1,1,1,8/gate_up/32 \
             w4a8fp8:4,255,1,1,1,1,4/gate_up/16 w4a8fp8:4,255,1,1,1,1,4/gate_up/1 \
             w4a8fp8:4,255,1,1,1,1,8/gate_up/16 w4a8fp8:4,255,2,1,1,1,4/gate_up/32 \
             mxfp4:4,255,1,1,1,1,8/gate_up/1; do
      IFS=/ read -r t shape m <<<"$c"
      one "$t" "$shape" "$m"
      one "$t" "$shape" "$m" R4G_KDUAL=1
    done
  done
} 2>&1 | tee -a "$OUT/runs.log"
if ! echo "$gpu" | grep -q H200; then
  echo "not an H200: lesions left out" | tee -a "$OUT/runs.log"
  exit 0
fi
if (( SECONDS > 450 )); then
  echo "lesions left out: ${SECONDS} s gone" | tee -a "$OUT/runs.log"
  exit 0
fi
{
  echo "#### lesions (H200): 2 no math, 16 no wgmma, 32 no conversion, 64 no promotion"
  for l in 2 16 32 64; do r4_one w4a8fp8:4,255,1,1,1,1,4 gate_up 16 R4G_LESION=$l; done
  for l in 2 32; do r4_one w4a8:4,255,1,1,1,1,8 gate_up 16 R4G_LESION=$l; done
  r4_one w4a8fp8:8,132,4,1,1,1,4 down 64
  r4_one w4a8fp8:8,132,4,1,1,1,4 down 64 R4G_LESION=2
} 2>&1 | tee -a "$OUT/runs.log"
echo "wall ${SECONDS} s" | tee -a "$OUT/runs.log"
