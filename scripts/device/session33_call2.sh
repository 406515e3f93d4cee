# Session 33, call 2 (pack: R4_PACK_BUILD=build scripts/device/pack.sh at the bulk-activation
# commit, src.tar and the fixture database dropped; .device/old holds r4tune and r4kern of
# 009dc4d; carry [".device/bin", ".device/old"]): the one-byte sm90a configs' activations by bulk
# copies from the chunk-major sm90a order (R4G_BULKA) against 009dc4d's cp.async / staging ring.
#   1. r4kern --one, old / new / old / new on eight configs (each run checked over poison before it
#      is timed): the A/B that says what the change did per config;
#   1b. the consumers' dequantise-ahead (R4G_DQA=0 / 1 / 0 / 1) on four configs of the new build;
#   2. sweep_ab.sh bin old: both dflash cold sweeps, every config verified, winners compared;
#   3. every gpu-labelled test binary of the new build.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
L=$OUT/ab.log
timeout 30 $B/r4kern --one "w4a8:4,1,2,2,1,1,8" --shapes o --m 64 2>&1 | grep -E "^one|r4kern:" | tee -a $L
[[ ${PIPESTATUS[0]} == 0 ]] || { echo "new r4kern failed its first config: stopping"; exit 1; }
for one in "w4a8:4,1,2,2,1,1,8@o@64" "w4a8fp8:8,1,2,1,1,1,8@o@64" "w4a8:8,1,4,2,1,1,4@gate_up@64" \
           "w4a8:8,132,4,1,1,1,4@gate_up@64" "w4a8fp8:8,132,3,1,1,1,4@gate_up@48" \
           "w4a8:4,2,1,2,0,1,4@gate_up@1" "w4a8fp8:8,4,1,1,1,1,4@gate_up@16" "w4a8:8,4,4,2,0,1,4@down@64"; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in old bin old bin; do
    echo "-- $v $one" >>$L
    timeout 40 .device/$v/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one|r4kern:" >>$L
  done
done
# The consumers' dequantise-ahead (R4G_DQA, experiment, default 0) on the new build: 0 / 1 / 0 / 1.
for one in "w4a8:4,1,2,2,1,1,8@o@64" "w4a8fp8:8,1,2,1,1,1,8@o@64" "w4a8fp8:8,132,3,1,1,1,4@gate_up@48" \
           "w4a8:4,2,1,2,0,1,4@gate_up@1"; do
  IFS=@ read -r cfg shape m <<<"$one"
  for d in 0 1 0 1; do
    echo "-- DQA=$d $one" >>$L
    timeout 40 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" --define R4G_DQA=$d 2>&1 | grep -E "^one|r4kern:" >>$L
  done
done
grep -E "^--|as a race|checked|wrong|r4kern:" $L | tail -120
echo "== sweep_ab bin old"
timeout 260 bash scripts/device/sweep_ab.sh bin old
echo "== gpu-labelled tests"
timeout 200 bash scripts/device/gpu_tests.sh
echo "gpu tests rc=$?"
