#!/usr/bin/env bash
# Copies the binaries a device run needs into .device/bin (git-ignored; carried by the device
# tool). Kernel sources are embedded in the binaries, so nothing else is needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .device/bin
cp build/tuner/r4tune .device/bin/
for t in build/tests/tuner/tuner_gpu_runtime_test build/tests/kernels/kernels_gpu_check_test \
         build/kernels/r4kern; do
  [[ -f $t ]] && cp "$t" .device/bin/
done
strip --strip-debug .device/bin/*
du -sh .device/bin
