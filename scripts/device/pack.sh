#!/usr/bin/env bash
# Copies what a device run needs into .device/bin (git-ignored; carried by the device tool):
# r4tune, r4kern, the gpu-labelled test binaries, r4d_bench, the H200 fixture database (the
# committed tables' run, for r4d_bench), and src.tar (a git archive of HEAD,
# for building r4d's Python module against the device's python and torch). Kernel sources are
# embedded in the binaries, so nothing else is needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The binaries record `git describe`-style commits in every run: build from a committed tree, so
# the commit they record is the one they were built from (a sweep at dbcf059 recorded
# "c513ccf-dirty" because the build preceded the commit).
if ! git diff --quiet HEAD -- . ':!.device'; then
  echo "pack.sh: the working tree has uncommitted changes; commit first" >&2
  exit 1
fi
# R4_PACK_BUILD: an existing build directory of this tree to pack from (default build).
bd=${R4_PACK_BUILD:-build}
scripts/build.sh "$bd" >/dev/null
mkdir -p .device/bin
rm -f .device/bin/*
cp "$bd"/tuner/r4tune .device/bin/
for t in tests/tuner/tuner_gpu_runtime_test tests/kernels/kernels_gpu_check_test \
         tests/tuner/tuner_measure_pdl_gpu_test tests/kernels/kernels_quant_act_fp8_gpu_test \
         tests/kernels/kernels_fp8_gemm_gpu_test \
         kernels/r4kern tests/r4d/r4d_launch_gpu_test tests/r4d/r4d_graph_gpu_test \
         kernels/r4d/r4d_bench; do
  t=$bd/$t
  [[ -f $t ]] && cp "$t" .device/bin/
done
strip --strip-debug .device/bin/*
cp "$bd"/fixtures/h200-dflash-2026-11-30.db .device/bin/  # the tables' run, for r4d_bench
git archive --format=tar -o .device/bin/src.tar HEAD
du -sh .device/bin
