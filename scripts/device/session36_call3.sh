#!/usr/bin/env bash
# Session 36, call 3: A/B of R4G_EARLY_REL=1 (kernels/nv/gemm_w4_sm90a.h: each consumer warp
# releases a stage once its wgmmas have retired, before the promotion; experiment, default 0),
# and the lesion R4G_LESION=2 (no consumer math; timed unchecked) to see how much of each small-M
# config is its consumers. Stream-K configs (no scale chunks) compile as before: controls.
# r4kern --one: checked over poison, then timed. Two rounds.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  echo "== A/B base | R4G_EARLY_REL=1 | R4G_LESION=2, round $r"
  R4_AB_CONFIGS="mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@16 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8fp8:8,132,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8:4,2,1,2,0,1,4@gate_up@1 mxfp4:4,4,1,1,1,1,4@down@16 w4a8:4,4,1,1,1,1,8@down@16 mxfp4:4,1,1,1,1,1,4@o@16 w4a8fp8:4,8,1,1,1,1,4@qkv@16 mxfp4:4,4,1,1,1,1,6@qkv@16 w4a8:4,16,1,1,1,1,8@hidden_proj@16 mxfp4:4,1,4,1,1,1,4@o@64 mxfp4:8,2,4,1,1,1,4@o@64 w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8fp8:4,8,1,1,1,1,6@kernel_proj@16 mxfp4:8,132,4,1,1,1,4@gate_up@64" \
    R4_AB_SETS="R4G_EARLY_REL=1|R4G_LESION=2" timeout 280 bash scripts/device/ab_define.sh 2>&1 | grep -E "as a race|: [0-9.]+ us \(|wrong|error|FAIL"
  [[ $r == 1 ]] && cp "$OUT/ab.log" "$OUT/ab-round1.log"
done
