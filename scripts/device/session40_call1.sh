#!/usr/bin/env bash
# Session 40, call 1: session39_call3.sh reordered for a short device budget. Session 40 got no
# machine; session 41 ran it on an H100 (nvidia-h100-x1) at cdfd783 with R4_CALL_S=560 and
# timeout_s 600, in 329 s: docs/device-logs/2026-12-07-session41-h100-call1-*.log. Same carry ([".device/bin"], pack.sh without r4kern, the
# fixture database and src.tar) and the same checks, most valuable first, each appending to
# $OUT/call1.log as it ends so a run cut at its limit still brings back what finished:
#   1. r4d's gpu-labelled gtests on the refreshed tables (the first GPU launches of balanced
#      SK 255 rows through r4d);
#   2. r4d_bench, every table row, r4d against the tuner's NVRTC build and the stored sweep (the
#      3% criterion of issue 12);
#   3. r4d.sh: the Python module, torch tests, compile + CUDA graph, the drafter example;
#   4. the tuner's and kernels' gpu-labelled binaries (their kernels did not change since session
#      38 call 4, where they passed on an H100) if time is left.
# R4_CALL_S bounds the whole (default 450 s). r4d_launch_gpu_test ran 119 s on an H100 in
# session 38; it now also checks the balanced bands (gate_up, 17408 x 5120, M 1..48 on the CPU
# reference), hence its 280 s.
set -u
T0=$(date +%s)
source "$(dirname "$0")/env.sh"
left() { echo $((${R4_CALL_S:-450} - ($(date +%s) - T0))); }
L="$OUT/call1.log"
tar -cf /tmp/src.tar --exclude=./.device . && mv /tmp/src.tar $B/src.tar
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  git log --oneline -1
  for t in r4d_launch_gpu_test r4d_graph_gpu_test; do
    s=$(date +%s)
    timeout 280 $B/$t --gtest_brief=1 2>&1 | tail -6
    echo "$t rc=${PIPESTATUS[0]} in $(( $(date +%s) - s )) s"
  done
  echo "== r4d_bench: r4d against the tuner's NVRTC build and the stored sweep, every table row"
  s=$(date +%s)
  timeout 150 $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db 2>&1
  echo "bench rc=$? in $(( $(date +%s) - s )) s"
} >>"$L" 2>&1
grep -E "rc=|PASSED|FAILED|ratio|within|H200|H100|failed" "$L"
l=$(left); echo "r4d.sh with $l s left"
[[ $l -gt 60 ]] && R4D_GTESTS_DONE=1 R4D_SKIP_BENCH=1 timeout $((l - 40)) bash scripts/device/r4d.sh
l=$(left); echo "the other gpu-labelled binaries with $l s left"
for t in tuner_gpu_runtime_test tuner_measure_pdl_gpu_test kernels_gpu_check_test \
         kernels_quant_act_fp8_gpu_test kernels_fp8_gemm_gpu_test; do
  l=$(left); [[ $l -gt 15 ]] || break
  timeout $((l - 5)) $B/$t --gtest_brief=1 >>"$OUT/gtests.log" 2>&1
  echo "$t rc=$?"
done
echo "total $(( $(date +%s) - T0 )) s"
