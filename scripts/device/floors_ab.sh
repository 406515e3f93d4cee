#!/usr/bin/env bash
# The floor kernels side by side on the H200 (docs/PERF.md, session 5): the launch floor, and per
# seed shape the sweep's two-loop read floor (r4_read_floor) against the one-loop experiment
# (r4_read_floor_fused), same pool method and grids as the sweep. About 20 s of device time.
# From the repository root, with .device/bin carried (scripts/device/pack.sh).
set -uo pipefail
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
timeout 300 $B/r4kern --floors --out "$OUT" 2>&1 | tee "$OUT/floors.log"
