#!/usr/bin/env bash
# NOT RUN in session 39 (no machine started; the device time ran out), nor in session 40 (eighteen
# asks failed or were refused); session40_call1.sh is the same checks reordered, most valuable
# first, and is the one to run. The next session runs it
# on branch fixture/h200-6ff1d4f, whose tables it tests, before that branch lands (or, if the
# branch is gone, after scripts/refresh_fixture.sh docs/device-logs/2026-12-06-session39-h200-
# call2-dflash-run1.db.xz, committed, and a pack of that tree).
# Session 39, call 3: r4d and the gpu-labelled tests at the commit whose tables, fixture and report
# came from call 2's H200 sweep (6ff1d4f's kernels). Carry [".device/bin"] (pack.sh without r4kern
# and the fixture database, which is unpacked here from tests/fixtures: 64 MiB carry limit).
# Order: the quick gpu-labelled binaries, r4d's gtests, r4d_bench (every table row through r4d
# against the tuner's NVRTC build and the stored sweep: the 3% criterion), then r4d.sh's Python
# module, torch tests and the drafter end to end.
set -u
T0=$(date +%s)
source "$(dirname "$0")/env.sh"
# src.tar for r4d.sh from the copied working tree (HEAD plus this script), not carried.
tar -cf /tmp/src.tar --exclude=./.device . && mv /tmp/src.tar $B/src.tar
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  timeout 250 bash scripts/device/gpu_tests.sh
  echo "gpu tests rc=$?"
  echo "== r4d_bench: r4d against the tuner's NVRTC build and the stored sweep, every table row"
  timeout 200 $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db 2>&1
  echo "bench rc=$?"
} 2>&1 | tee "$OUT/call3.log" | grep -E "rc=|PASSED|FAILED|ratio|within|H200|H100|failed"
left=$((${R4_CALL_S:-580} - ($(date +%s) - T0)))
echo "r4d.sh with ${left} s left"
R4D_GTESTS_DONE=1 R4D_SKIP_BENCH=1 timeout $left bash scripts/device/r4d.sh
