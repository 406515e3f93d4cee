#!/usr/bin/env bash
# Builds and runs every test: the normal build, then an ASan+UBSan build of the host code.
# GPU-labelled tests skip themselves where there is no GPU. Exit status is non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

echo "== build (RelWithDebInfo, without debug info: docs/BUILD.md)"
bash scripts/build.sh build -DR4_DEBUG_INFO=OFF
echo "== tests"
ctest --test-dir build --output-on-failure --parallel "$jobs"

echo "== build (ASan+UBSan, host code)"
bash scripts/build.sh build-asan -DR4_SANITIZE=ON -DR4_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug \
  -DR4D_BUILD_KERNELS=OFF -DR4D_BUILD_PYTHON=OFF
echo "== tests under ASan+UBSan"
# NVRTC and hipRTC are closed or foreign libraries loaded with dlopen; their own allocations are
# not ours to police, so leak checking is off while everything else (ASan, UBSan) stays on.
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure --parallel "$jobs" -LE "slow|browser"
