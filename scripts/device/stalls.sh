#!/usr/bin/env bash
# Warp stall reasons and the hottest SASS lines (Nsight Compute WarpStateStats + SourceCounters)
# for R4_NCU_CONFIGS ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ...", r4kern --one), one full
# report per config in $OUT/stalls-N.log and the stall lines on stdout.
set -uo pipefail
source "$(dirname "$0")/env.sh"
i=0
for one in ${R4_NCU_CONFIGS:-}; do
  i=$((i + 1))
  IFS=@ read -r cfg shape m <<<"$one"
  echo "== $cfg $shape M=$m"
  timeout 150 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SourceCounters \
    $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" >"$OUT/stalls-$i.log" 2>&1
  grep -E "one |Duration|Achieved Active Warps|Warp Cycles Per Issued|Stall|stall|Registers" \
    "$OUT/stalls-$i.log" | head -40
done
