#!/usr/bin/env bash
# The sm90a generation on the H200 in one device call: the kernel check and PDL tests, r4kern's
# check and timing of every Nth sm90a config (R4_STRIDE, default 3), and Nsight Compute on one
# config per kernel (R4_NCU_CONFIGS: "variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ..."). Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/sm90a.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  echo "== kernel check and PDL tests"
  timeout 120 $B/kernels_gpu_check_test --gtest_brief=1 2>&1 | tail -4
  timeout 200 $B/tuner_measure_pdl_gpu_test 2>&1 | grep -vE "^\[ (RUN|  +OK) " | tail -30
  echo "== r4kern sm90a"
  timeout 330 $B/r4kern --check --time --gen 1 --stride "${R4_STRIDE:-3}" --time-budget "${R4_BUDGET:-90}" \
    --out "$OUT" 2>&1 | grep -vE "^(timed|checked) " | tail -60
  echo "r4kern rc=${PIPESTATUS[0]}"
  for one in ${R4_NCU_CONFIGS:-}; do
    IFS=@ read -r cfg shape m <<<"$one"
    echo "== ncu $cfg $shape M=$m"
    timeout 120 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section SchedulerStats --section Occupancy --section LaunchStats \
      $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -vE "^==PROF==" | tail -90
  done
} >"$L" 2>&1
grep -E "rc=|PASSED|FAILED|trigger|wait|step path|correctness|ALL PASS|FAIL |^(qkv|o|gate_up|down|kernel_proj|hidden_proj) |timing sweep|Duration|Throughput|Warp Cycles|Eligible|Issued Warp|No Eligible|Achieved Occupancy|Registers" "$L" | head -120
