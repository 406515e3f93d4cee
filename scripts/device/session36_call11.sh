#!/usr/bin/env bash
# Session 36, call 11: is gate_up's small-M consumer cost a tail of its 272 CTAs (2.06 per SM: 8 SMs
# hold 3)? The same tuples on gate_up (17408 rows: 272 CTAs), on 16896 x 5120 (264 CTAs: 2 per SM)
# and 8448 x 5120 (132: 1 per SM), as is and with R4G_LESION=2 (no consumer math, unchecked).
# r4kern --one --shapes NxK (checked over poison first, then timed).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
R4_AB_CONFIGS="mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@16896x5120@1 mxfp4:4,1,1,1,1,1,4@8448x5120@1 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@16896x5120@16 w4a8:4,1,1,1,1,1,4@8448x5120@16 w4a8fp8:4,1,1,1,1,1,4@gate_up@16 w4a8fp8:4,1,1,1,1,1,4@16896x5120@16" \
  R4_AB_SETS="R4G_LESION=2" timeout 120 bash scripts/device/ab_define.sh 2>&1 | grep -E ": [0-9.]+ us \(|FAIL|not a valid"
