#!/usr/bin/env bash
# Session 42, call 4: where the sm90a consumers' time goes at M <= 16 on today's winners (the
# balanced grid and split-K tuples of the committed H200 tables), for the two fp8-activation kinds
# of issue 13: r4kern --one, GEMM alone, two rounds, as is (checked first) and with the lesion bits
# of kernels/nv/gemm_w4_sm90a.h: 128 (the cheap conversion: MXFP4 4 instructions per dword instead
# of 7, int4 3 instead of ~11, values wrong), 32 (no conversion), 64 (no promotion), 16 (no wgmma)
# and 2 (no math). Session 36 measured the same on SK 1 tuples, before the balanced grid. MXFP4's
# lesion 128 existed at aa5b83a only (it ran slower than as is; docs/PERF.md session 42).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
{
  for round in 1 2; do
    echo "#### round $round"
    for c in mxfp4:4,255,1,1,1,1,8/gate_up/16 mxfp4:4,255,1,1,1,1,8/gate_up/1 \
             mxfp4:4,4,1,1,1,1,4/down/16 mxfp4:4,255,1,1,1,1,8/28672x4096/16 \
             w4a8fp8:4,255,1,1,1,1,4/gate_up/16 w4a8fp8:4,4,1,1,1,1,4/down/16; do
      IFS=/ read -r cfg shape m <<<"$c"
      r4_one "$cfg" "$shape" "$m"
      for l in 128 32 64 16 2; do r4_one "$cfg" "$shape" "$m" R4G_LESION=$l; done
    done
  done
} 2>&1 | tee -a "$OUT/runs.log"
