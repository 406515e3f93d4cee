# Session 33, call 3 (run; f22d149 of the branch bulka): the A/B of the bulk-copied activations, cut
# to the device time left after failed starts and a machine taken back mid-call. Pack:
# R4_PACK_BUILD=build scripts/device/pack.sh, src.tar and the fixture database dropped;
# .device/old: r4tune and r4kern of 009dc4d; carry [".device/bin", ".device/old"]. In order of need:
#   1. r4kern --one old / new / old / new on four configs (each run checked before it is timed);
#   2. R4G_DQA 0 / 1 / 0 / 1 on o_proj (4, 1, 2, 2, 1, 8) of the new build;
#   3. the new build's dflash cold sweep (compiles and verifies every config, stores the winners);
#   4. the gpu-labelled test binaries of the new build but r4d_launch_gpu_test.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
L=$OUT/ab.log
timeout 30 $B/r4kern --one "w4a8:4,1,2,2,1,1,8" --shapes o --m 64 2>&1 | grep -E "^one|r4kern:" | tee -a $L
[[ ${PIPESTATUS[0]} == 0 ]] || { echo "new r4kern failed its first config: stopping"; exit 1; }
for one in "w4a8:4,1,2,2,1,1,8@o@64" "w4a8fp8:8,1,2,1,1,1,8@o@64" "w4a8:8,1,4,2,1,1,4@gate_up@64" \
           "w4a8:4,2,1,2,0,1,4@gate_up@1"; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in old bin old bin; do
    echo "-- $v $one" >>$L
    timeout 30 .device/$v/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one|r4kern:" >>$L
  done
done
for one in "w4a8:4,1,2,2,1,1,8@o@64"; do
  IFS=@ read -r cfg shape m <<<"$one"
  for d in 0 1 0 1; do
    echo "-- DQA=$d $one" >>$L
    timeout 30 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" --define R4G_DQA=$d 2>&1 | grep -E "^one|r4kern:" >>$L
  done
done
grep -E "^--|as a race|wrong|r4kern:" $L
echo "== dflash cold sweep, new build"
timeout 150 $B/r4tune sweep configs/dflash.toml --db /tmp/new.db --plain 2>&1 |
  grep -vE "^(compile|measure) " > $OUT/new-sweep.log
echo "sweep rc=${PIPESTATUS[0]}"; grep -E "^(run|time)|failed|dflash +(8|64) " $OUT/new-sweep.log | head -30
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" /tmp/new.db && xz -9 -c /tmp/new.db > $OUT/new-run1.db.xz
echo "== gpu-labelled tests but r4d_launch_gpu_test (137 s on the H100; no time left for it)"
for t in tuner_gpu_runtime_test tuner_measure_pdl_gpu_test kernels_gpu_check_test \
         kernels_quant_act_fp8_gpu_test kernels_fp8_gemm_gpu_test r4d_graph_gpu_test; do
  timeout 60 $B/$t --gtest_brief=1 > $OUT/$t.log 2>&1
  echo "$t rc=$?"; grep -E "PASSED|FAILED|Failure" $OUT/$t.log | head -4
done
