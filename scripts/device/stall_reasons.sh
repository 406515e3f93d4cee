#!/usr/bin/env bash
# Warp stall reasons per issued instruction (ncu metrics smsp__average_warps_issue_stalled_*_
# per_issue_active: how many warps wait on each reason for every instruction issued) of r4kern
# --one configs, R4_SR_CONFIGS ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M[@D1+D2...] ...", the
# optional fourth field: kernel defines joined by '+'); stalls.sh's
# sections leave the breakdown out (docs/PERF.md "Session 19"). Log in $OUT/stall-reasons.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
for one in ${R4_SR_CONFIGS:-}; do
  IFS=@ read -r cfg shape m defs <<<"$one"
  dargs=()
  IFS='+' read -ra ds <<<"${defs:-}"
  for d in "${ds[@]}"; do dargs+=(--define "$d"); done
  echo "== $cfg $shape M=$m ${defs:-}"
  timeout 150 ncu --clock-control none --kernel-name "regex:${R4_NCU_KERNEL:-gemm}" \
    --launch-skip 10 --launch-count 1 \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,gpu__time_duration.sum,smsp__warps_active.avg.per_cycle_active,smsp__inst_executed.avg.per_cycle_active" \
    $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" "${dargs[@]}" 2>&1 |
    grep -E "^one .*us \(|stalled|duration|warps_active|inst_executed" |
    awk '$NF+0 >= 0.05 || /^one|duration|warps_active|inst_executed/'
done | tee "$OUT/stall-reasons.log"
