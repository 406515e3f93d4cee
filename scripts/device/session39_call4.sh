#!/usr/bin/env bash
# NOT RUN in session 39 (no machine started; the device time ran out). The next session runs it
# on branch fixture/h200-6ff1d4f, whose tables it tests, before that branch lands (or, if the
# branch is gone, after scripts/refresh_fixture.sh docs/device-logs/2026-12-06-session39-h200-
# call2-dflash-run1.db.xz, committed, and a pack of that tree).
# Session 39, call 4: call 3's runs in priority order for a short device budget (R4_CALL_S, s):
# r4d's gtests on the refreshed tables, r4d_bench (the 3% criterion), the Python module and its
# torch-ops test (compile + CUDA graph), then the quick gpu-labelled binaries; the drafter end to
# end only if time is left. Carry [".device/bin"] as call 3.
set -u
T0=$(date +%s)
left() { echo $((${R4_CALL_S:-400} - ($(date +%s) - T0))); }
source "$(dirname "$0")/env.sh"
tar -cf /tmp/src.tar --exclude=./.device . && mv /tmp/src.tar $B/src.tar
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
L="$OUT/call4.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  for t in r4d_launch_gpu_test r4d_graph_gpu_test; do
    s=$(date +%s); timeout 200 $B/$t --gtest_brief=1 2>&1 | tail -4
    echo "$t rc=${PIPESTATUS[0]} in $(( $(date +%s) - s )) s"
  done
  echo "== r4d_bench ($(left) s left)"
  timeout $(( $(left) - 150 )) $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db 2>&1
  echo "bench rc=$?"
} >"$L" 2>&1
grep -E "rc=|PASSED|FAILED|ratio|within|H200|H100" "$L"
echo "== r4d.sh: module, torch tests ($(left) s left)"
R4D_GTESTS_DONE=1 R4D_SKIP_BENCH=1 R4D_SKIP_EXAMPLE=1 timeout $(( $(left) - 40 )) bash scripts/device/r4d.sh
echo "== the quick gpu-labelled binaries ($(left) s left)"
for t in tuner_gpu_runtime_test tuner_measure_pdl_gpu_test kernels_gpu_check_test \
         kernels_quant_act_fp8_gpu_test kernels_fp8_gemm_gpu_test; do
  [[ $(left) -gt 15 ]] || { echo "$t: no time left"; continue; }
  timeout $(( $(left) - 5 )) $B/$t --gtest_brief=1 >>"$OUT/gtests.log" 2>&1
  echo "$t rc=$?"
done
