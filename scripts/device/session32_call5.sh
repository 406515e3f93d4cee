# Session 32, call 5 (carry [".device/bin"], call 2's pack): evidence for the two bands that still
# lose to block-fp8 at M = 32..64 on dflash (o_proj 5120 x 2048 at M = 48 / 64: best 9.71 / 10.82
# us against 9.17 / 9.25, read floor 3.43). ncu per config: time, DRAM bytes read, L2 hit rate,
# grid, SM and DRAM throughput, for the w4a8 winners (ldg) and sm90a configs with 20-80 blocks.
set -u
source "$(dirname "$0")/env.sh"
for one in "w4a8:4,1,1,1,0,2,4@o@64" "w4a8:8,2,1,1,0,2,2@o@48" "w4a8:8,1,4,2,1,1,4@o@64" \
           "w4a8:8,4,4,1,1,1,4@o@64" "w4a8fp8:8,1,2,1,1,1,8@o@64" "w4a8:8,132,4,1,1,1,4@o@64"; do
  IFS=@ read -r cfg shape m <<<"$one"
  echo "== $cfg $shape M=$m"
  timeout 90 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,launch__grid_size,launch__block_size,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,smsp__warps_active.avg.pct_of_peak_sustained_active \
    $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 |
    grep -E "^one .*(us \(|error|invalid)|duration|bytes_read|hit_rate|grid_size|block_size|throughput|registers|warps_active|rror"
done | tee "$OUT/o-proj-ncu.log"
