#!/usr/bin/env bash
# Nsight Compute on R4_NCU_CONFIGS ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M[@DEF=V+DEF=V]",
# r4kern --one, the optional fourth field its --define list): speed of light, memory workload
# (L1 / L2 hit rates and throughputs), occupancy and its limiters, warp stall reasons; with
# R4_NCU_SOURCE=1 also the hottest SASS lines. One full report per config in $OUT/stalls-N.log,
# the key lines on stdout. R4_NCU_KERNEL (a regex, default gemm) picks the kernel: quant_act for
# the activation quantiser.
set -uo pipefail
source "$(dirname "$0")/env.sh"
i=0
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
          --section LaunchStats --section WarpStateStats)
[[ ${R4_NCU_SOURCE:-0} == 1 ]] && sections+=(--section SourceCounters)
# R4_NCU_COMPUTE=1 adds the pipes' utilisation (tensor, ALU, FMA; ComputeWorkloadAnalysis).
[[ ${R4_NCU_COMPUTE:-0} == 1 ]] && sections+=(--section ComputeWorkloadAnalysis)
for one in ${R4_NCU_CONFIGS:-}; do
  i=$((i + 1))
  IFS=@ read -r cfg shape m defs <<<"$one"
  dargs=()
  if [[ -n ${defs:-} ]]; then
    IFS='+' read -ra ds <<<"$defs"
    for d in "${ds[@]}"; do dargs+=(--define "$d"); done
  fi
  echo "== $cfg $shape M=$m ${defs:-}"
  timeout 150 ncu --clock-control none --kernel-name "regex:${R4_NCU_KERNEL:-gemm}" --launch-skip 10 --launch-count 1 \
    "${sections[@]}" $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" "${dargs[@]}" \
    >"$OUT/stalls-$i.log" 2>&1
  grep -E "^one |Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|L1/TEX Cache Throughput|L2 Cache Throughput|Mem Busy|Max Bandwidth|Mem Pipes Busy|Achieved Active Warps|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Stall|Registers Per|Shared Memory Configuration|Dynamic Shared|Static Shared|Pipe|Tensor|Issue Slots|Executed Ipc|SM Busy|Grid Size|Waves Per SM" \
    "$OUT/stalls-$i.log" | head -60
done
