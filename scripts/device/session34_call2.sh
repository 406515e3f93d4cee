#!/usr/bin/env bash
# Session 34, call 2 (branch bulka at 0f3f4eb: sm90a launches raised to one wave's CTAs per SM;
# pack: R4_PACK_BUILD=build scripts/device/pack.sh, src.tar and the fixture database dropped;
# .device/old: r4tune + r4kern of 009dc4d (main's kernels), .device/plain: r4tune + r4kern of
# b9033ee (the branch without the raise); carry [".device/bin", ".device/old", ".device/plain"]).
#   1. dflash cold sweeps of new and old on this machine (verify every config; the step tables);
#   2. every gpu-labelled binary of the new build (r4d's launch and graph tests included);
#   3. r4kern --one old / plain / new, twice, on four configs (o_proj M = 64 int8 and fp8, gate_up
#      M = 1 int8, M = 16 fp8).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
.device/bin/r4tune devices 2>&1 | grep -E "shared|multiprocessors"
echo "== dflash cold sweep, new build"
bash scripts/device/sweep_verify.sh 110
echo "== dflash cold sweep, old build (009dc4d)"
timeout 110 .device/old/r4tune sweep configs/dflash.toml --db /tmp/old.db --plain 2>&1 |
  grep -vE "^(compile|measure) " >"$OUT/old-sweep.log"
echo "sweep rc=${PIPESTATUS[0]}"
grep -E "^(run|time)|failed|^step|^dflash +[0-9]+ " "$OUT/old-sweep.log" | head -30
r4_pack_db /tmp/old.db "$OUT/old-run1.db.xz"
echo "== gpu-labelled tests, new build"
timeout 250 bash scripts/device/gpu_tests.sh
echo "gpu tests rc=$?"
echo "== ab"
R4_AB_ONE="w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8fp8:8,4,1,1,1,1,4@gate_up@16" \
R4_AB_BUILDS="old plain bin old plain bin" bash scripts/device/ab_builds.sh | grep -E "^--|as a race|us \(|wrong|r4kern:"
