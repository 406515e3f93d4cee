#!/usr/bin/env bash
# Session 36, call 5: ring depth at small M (call 4's PC samples: the consumers wait on "full" and
# the producer on "empty" about equally, as if each slot's cycle were copy latency + consumer work
# in series, which more stages would amortise). The same tuple at ST 4, 6 and 8, as is and with
# R4G_LESION=2 (no consumer math; timed unchecked). r4kern --one, two rounds.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
cf=""
for st in 4 6 8; do
  cf+=" mxfp4:4,1,1,1,1,1,$st@gate_up@1 mxfp4:4,1,1,1,1,1,$st@gate_up@16 w4a8:4,1,1,1,1,1,$st@gate_up@16 w4a8fp8:4,1,1,1,1,1,$st@gate_up@16 mxfp4:4,4,1,1,1,1,$st@down@16 mxfp4:4,1,1,1,1,1,$st@o@16"
done
for r in 1 2; do
  echo "== ST 4 / 6 / 8, as is | R4G_LESION=2, round $r"
  R4_AB_CONFIGS="$cf" R4_AB_SETS="R4G_LESION=2" timeout 280 bash scripts/device/ab_define.sh 2>&1 | grep -E "as a race|: [0-9.]+ us \(|wrong|error|FAIL"
  [[ $r == 1 ]] && cp "$OUT/ab.log" "$OUT/ab-round1.log"
done
