#!/usr/bin/env bash
# Session 36, call 10: A/B of R4G_PPIPE=1 (kernels/nv/gemm_w4_sm90a.h: the promotion one stage
# late, overlapping the next stage's wgmmas; experiment, default 0). r4kern --one: each run checked
# over poison first, then timed. One round (the device time left).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
R4_AB_CONFIGS="mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8fp8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 mxfp4:4,4,1,1,1,1,4@down@16 mxfp4:4,1,1,1,1,1,4@o@16 w4a8fp8:4,8,1,1,1,1,4@qkv@16 w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64" \
  R4_AB_SETS="R4G_PPIPE=1" timeout 150 bash scripts/device/ab_define.sh 2>&1 | grep -E "as a race|: [0-9.]+ us \(|FAIL"
