#!/usr/bin/env bash
# Session 36, call 8: call 7's A/B of R4G_SC_EARLY=1 again for the int4 kinds, whose first version
# promoted each group twice (call 7: every w4a8 / w4a8fp8 / w4a16 check failed, none was timed;
# MXFP4's passed). r4kern --one: checked over poison, then timed. Two rounds.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  echo "== A/B base | R4G_SC_EARLY=1, round $r"
  R4_AB_CONFIGS="w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8fp8:8,132,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,4,1,1,1,1,8@down@16 w4a8fp8:4,8,1,1,1,1,4@qkv@16 w4a8:4,16,1,1,1,1,8@hidden_proj@16 w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8fp8:4,8,1,1,1,1,6@kernel_proj@16 w4a8:8,132,4,1,1,1,4@gate_up@64 w4a16:8,132,4,1,1,1,4@gate_up@64 w4a8fp8:8,132,4,1,1,1,4@gate_up@64 mxfp4:4,1,4,1,1,1,4@o@64" \
    R4_AB_SETS="R4G_SC_EARLY=1" timeout 280 bash scripts/device/ab_define.sh 2>&1 | grep -E "as a race|: [0-9.]+ us \(|FAIL"
  [[ $r == 1 ]] && cp "$OUT/ab.log" "$OUT/ab-round1.log"
done
