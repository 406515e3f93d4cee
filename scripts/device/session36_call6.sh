#!/usr/bin/env bash
# Session 36, call 6: the consumers' math at small M split by lesions (kernels/nv/gemm_w4_sm90a.h
# R4G_LESION; timed unchecked): 2 none of it, 16 no wgmmas, 32 no dequantisation, 64 no promotion,
# 96 neither dequantisation nor promotion (the wgmmas alone). Call 3: the whole math is 3-7 us of
# gate_up at M <= 16 (MXFP4 24.3 -> 16.9 us GEMM alone), and ring depth does not change it (call 5).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
for r in 1 2; do
  echo "== lesions 2 | 16 | 32 | 64 | 96, round $r"
  R4_AB_CONFIGS="mxfp4:4,1,1,1,1,1,4@gate_up@1 mxfp4:4,1,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 w4a8fp8:4,1,1,1,1,1,4@gate_up@16 mxfp4:4,4,1,1,1,1,4@down@16 mxfp4:4,1,4,1,1,1,4@o@64 w4a8:4,1,2,2,1,1,8@o@64" \
    R4_AB_SETS="R4G_LESION=2|R4G_LESION=16|R4G_LESION=32|R4G_LESION=64|R4G_LESION=96" timeout 280 bash scripts/device/ab_define.sh 2>&1 | grep -E ": [0-9.]+ us \(|error|FAIL"
  [[ $r == 1 ]] && cp "$OUT/ab.log" "$OUT/ab-round1.log"
done
