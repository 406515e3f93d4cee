#!/usr/bin/env bash
# The ldg generation (kernels/nv/gemm_w4_ldg.h) on the H200 in one device call, with the floor
# kernels' A/B (floors_ab.sh) and the GPU-labelled tests: r4kern's check of every ldg config, its
# timing (R4_BUDGET seconds, default 150) against the same-run floors and cuBLASLt baselines, and
# Nsight Compute on R4_NCU_CONFIGS ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ..."). Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/ldg.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  echo "== floors (both floor kernels)"
  timeout 120 $B/r4kern --floors --out "$OUT" 2>&1 | tail -20
  echo "== GPU tests"
  for t in tuner_gpu_runtime_test kernels_gpu_check_test tuner_measure_pdl_gpu_test \
           kernels_quant_act_fp8_gpu_test r4d_launch_gpu_test r4d_graph_gpu_test; do
    [[ -x $B/$t ]] || { echo "$t: not carried"; continue; }
    s=$(date +%s)
    timeout 200 $B/$t --gtest_brief=1 >"$OUT/$t.log" 2>&1
    echo "$t rc=$? in $(( $(date +%s) - s )) s"; grep -E "FAILED|Failure|Which is|PASSED" "$OUT/$t.log" | head -8
  done
  echo "== r4kern ldg"
  timeout 360 $B/r4kern --check --time --gen 2 --time-budget "${R4_BUDGET:-150}" --out "$OUT" 2>&1 \
    | grep -vE "^(timed|checked) " | tail -80
  echo "r4kern rc=${PIPESTATUS[0]}"
  for one in ${R4_NCU_CONFIGS:-}; do
    IFS=@ read -r cfg shape m <<<"$one"
    echo "== ncu $cfg $shape M=$m"
    timeout 120 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section Occupancy --section LaunchStats \
      $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -vE "^==PROF==" | tail -70
  done
} >"$L" 2>&1
cd "$OUT" && tar czf logs.tar.gz --exclude=logs.tar.gz *.log *.csv 2>/dev/null
grep -E "rc=|PASSED|FAILED|correctness|ALL PASS|FAIL |launch floor|read floor|floor|^(qkv|o|gate_up|down|kernel_proj|hidden_proj) |ceiling|Duration|Throughput|Achieved Occupancy|Registers|one " "$L" | head -150
