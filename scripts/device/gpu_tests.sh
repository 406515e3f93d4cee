#!/usr/bin/env bash
# Every gpu-labelled gtest binary that scripts/device/pack.sh carried, on the H200 (through the
# device tool), from the repository root: the tuner's GPU layer and PDL measurement, the kernels'
# GPU checks (int4, fp8 activations, fp8 GEMMs), r4d's launch and graph tests. One line per
# binary with its exit status and time, then its gtest summary; full logs in $OUT/gtests.log.
# Exit status: the number of binaries that failed (0: all passed).
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/gtests.log"
failed=0
for t in tuner_gpu_runtime_test tuner_measure_pdl_gpu_test kernels_gpu_check_test \
         kernels_quant_act_fp8_gpu_test kernels_fp8_gemm_gpu_test r4d_launch_gpu_test \
         r4d_graph_gpu_test; do
  if [[ ! -x $B/$t ]]; then echo "$t: not carried"; failed=$((failed + 1)); continue; fi
  s=$(date +%s)
  echo "== $t" >>"$L"
  timeout 300 $B/$t --gtest_brief=1 >>"$L" 2>&1
  rc=$?
  echo "$t rc=$rc in $(( $(date +%s) - s )) s"
  grep -A1000 "^== $t" "$L" | grep -E "PASSED|FAILED|SKIPPED|Failure|checked|max ratio" | head -6
  [[ $rc == 0 ]] || failed=$((failed + 1))
done
echo "gpu-labelled binaries failed: $failed"
exit "$failed"
