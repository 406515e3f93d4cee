# Session 33, call 1 (written in session 32, NOT RUN yet; pack: R4_PACK_BUILD=build
# scripts/device/pack.sh, src.tar and the fixture database dropped; carry [".device/bin"]): which
# half of the sm90a producer's stream holds o_proj back. Session 32's lesion 6 (no math, no
# epilogue) left 7.06 us of 9.94 at o_proj M = 64 (4, 1, 2, 2, 1, 8), 2.06x the read floor; lesion
# 7 (also no activation staging) leaves the bulk-copied weights and the launch alone. If 7 is near
# 1 + 3.4 us, the activation staging is the limit (next: activations by bulk or tensor copies); if
# it stays near 7, the weights' 1 KiB copies are (next: one copy of 2-4 consecutive groups of a
# tile, which the sm80 layout keeps contiguous). ncu's DRAM throughput and issue counts of 6 and 7
# say the same from the hardware's side.
set -u
source "$(dirname "$0")/env.sh"
R4_ONE="w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8:8,1,4,2,1,1,4@gate_up@64" \
R4_LESIONS="0 6 7 3 5" timeout 300 bash scripts/device/lesion.sh
cat $OUT/lesion.log
for l in 6 7; do
  echo "== ncu, w4a8 (4, 1, 2, 2, 1, 8) o_proj M = 64, R4G_LESION=$l"
  timeout 90 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,lts__t_sector_hit_rate.pct \
    $B/r4kern --one "w4a8:4,1,2,2,1,1,8" --shapes o --m 64 --define R4G_LESION=$l 2>&1 |
    grep -E "duration|bytes_read|throughput|inst_executed|hit_rate"
done | tee "$OUT/ncu-lesions.log"
