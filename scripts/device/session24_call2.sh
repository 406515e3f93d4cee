# Session 24, call 2 (diagnosis, kernels as at df6b98d): (a) what bounds the sm90a generation at
# M = 64 (session 14: staging and math do not overlap; session 16 and call 1: neither the dequant
# nor the promotion is on the critical path): Nsight Compute's shared-memory, tensor-pipe and
# issue figures for the M = 64 winners; (b) which half of the fence costs w4a8fp8 its 9%.
set -u
B=.device/bin
ncu --query-metrics --chip gh100 2>&1 | grep -iE "gmma|mem_shared|tensor_op|lsu" > $OUT/metrics.txt
wc -l $OUT/metrics.txt
i=0
for one in "w4a8:8,1,4,2,1,1,4@gate_up@64" "w4a8:8,4,4,2,0,1,4@down@64" "w4a8:4,2,1,1,0,2,2@gate_up@16"; do
  i=$((i + 1))
  IFS=@ read -r cfg shape m <<<"$one"
  echo "== ncu $cfg $shape M=$m"
  timeout 150 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --print-details all \
    $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" > $OUT/ncu-$i.log 2>&1
  echo "rc=$? $(wc -l < $OUT/ncu-$i.log) lines"
  grep -iE "shared|Duration|Throughput|Tensor|Pipe|Issue|Bank|Stall" $OUT/ncu-$i.log | head -40
  timeout 150 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active \
    $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" > $OUT/ncum-$i.log 2>&1
  echo "metrics rc=$?"; grep -E "__|ERR|rror" $OUT/ncum-$i.log | head -12
done
echo "== w4a8fp8 fence halves"
for d in "" "--define R4L_DEP_LD=1" "--define R4L_WAIT_FENCE=1"; do
  timeout 60 $B/r4kern --one w4a8fp8:4,8,1,1,1,2,2 --shapes gate_up --m 1 $d 2>&1 | grep "^one " | grep -v checked
done
