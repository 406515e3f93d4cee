# Session 33, call 4 (written, NOT RUN: no device time left; run it from the branch bulka at
# 6979f89 or later. Pack: R4_PACK_BUILD=build scripts/device/pack.sh, src.tar and the fixture
# database dropped; .device/old: r4kern of 009dc4d, .device/prev: r4kern of f22d149; carry
# [".device/bin", ".device/old", ".device/prev"]): one bulk copy per stage wherever the M tile
# holds every row (the consumers' chunk stride 16 M), against call 3's eight tiny copies at M <= 8.
#   1. r4kern --one old / prev / new, twice, on three small-M configs;
#   2. the new build's dflash cold sweep (verifies every config; the step table).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
R4_AB_ONE="w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,2,1,2,0,1,4@gate_up@8 w4a8fp8:8,4,1,1,1,1,4@gate_up@16" \
R4_AB_BUILDS="old prev bin old prev bin" bash scripts/device/ab_builds.sh
echo "== dflash cold sweep, new build"
bash scripts/device/sweep_verify.sh 100
