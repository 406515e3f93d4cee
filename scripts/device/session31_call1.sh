# Session 31, call 1 (written in session 30, NOT RUN yet): the epilogue's row scales loaded at once
# in both generations (R4G_SA_EARLY sm90a, R4L_SA_EARLY ldg; both default 0), the chunk tuples
# that failed before the opt-in fix, then the chunk sweep (session30_call4.sh, which never ran).
# Pack (carry [".device/chunks"], ~8 MB):
#   cmake --build build --target r4kern tuner_gpu_runtime_test
#   cmake -S . -B build-chunks -G Ninja -DR4_SM90A_SCALE_CHUNKS=ON -DR4_DEBUG_INFO=OFF
#   cmake --build build-chunks --target r4tune r4kern
#   mkdir -p .device/chunks && rm -f .device/chunks/*
#   cp build-chunks/tuner/r4tune build-chunks/kernels/r4kern .device/chunks/
#   cp build/kernels/r4kern .device/chunks/r4kern_default
#   cp build/tests/tuner/tuner_gpu_runtime_test .device/chunks/
#   strip --strip-debug .device/chunks/*
# Prediction (docs/PERF.md "Session 30"): sm90a MB 4 tiles ~2-3 us faster (16 serial L2 round
# trips of ~0.15 us become one), MB 1 ~0.3-0.5 us; ldg ~0.15-0.3 us (2 or 4 round trips become 1).
set -u
source "$(dirname "$0")/env.sh"
C=.device/chunks
echo "== ldg: R4L_SA_EARLY A/B (the tables' w4a8 ldg winners)"
for one in w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,2,1,2,0,2,2@o@64 w4a8:2,16,1,1,1,2,4@hidden_proj@16 \
           w4a8:2,8,1,1,1,2,4@hidden_proj@32; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in 0 1 0 1; do
    printf "%s R4L_SA_EARLY=%s: " "$one" $v
    timeout 60 $C/r4kern_default --one "$cfg" --shapes "$shape" --m "$m" --define R4L_SA_EARLY=$v 2>&1 |
      tee -a $OUT/sa-early.log | awk '/r4kern:/ {print} /max error/ {printf "err %s ", $NF} /race times/ {printf "race %s ", $(NF-1)} / us \(/ && !/race/ {for (i = 1; i <= NF; ++i) if ($i == "us") printf "gemm %s ", $(i-1)}'
    echo
  done
done
echo "== sm90a: R4G_SA_EARLY A/B, the failing chunk tuples, the chunk sweep"
timeout 420 bash scripts/device/session30_call4.sh
echo "== SASS of the shared SK bodies (session 29's call 1, part C; its script's quoting fixed in session 30)"
R4_SS_CONFIGS="gemm_w4a8_nt:4,8,1,1,1,2,4 gemm_w4a8_nt:4,4,1,1,1,2,4 gemm_w4a8_nt:2,2,1,2,0,2,4 gemm_w4a8fp8_nt:8,8,1,1,1,1,4" \
  timeout 100 bash scripts/device/sass_sk.sh
