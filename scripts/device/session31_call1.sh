# Session 31, call 1 (written in session 30, NOT RUN yet): the epilogue's row scales loaded at once
# in both generations (R4G_SA_EARLY sm90a, R4L_SA_EARLY ldg; both default 0), the chunk tuples
# that failed before the opt-in fix, then the chunk sweep (session30_call4.sh, which never ran).
# Pack (carry [".device/chunks"], ~8 MB):
#   cmake --build build --target r4kern tuner_gpu_runtime_test
#   cmake -S . -B build-chunks -G Ninja -DR4_SM90A_SCALE_CHUNKS=ON -DR4_DEBUG_INFO=OFF
#   cmake --build build-chunks --target r4tune r4kern
#   rm -rf .device/chunks && mkdir -p .device/chunks
#   cp build-chunks/tuner/r4tune build-chunks/kernels/r4kern .device/chunks/
#   mkdir -p .device/chunks/default && cp build/kernels/r4kern .device/chunks/default/
#   cp build/tests/tuner/tuner_gpu_runtime_test .device/chunks/
#   find .device/chunks -type f -exec strip --strip-debug {} +
# Prediction (docs/PERF.md "Session 30"): sm90a MB 4 tiles ~2-3 us faster (16 serial L2 round
# trips of ~0.15 us become one), MB 1 ~0.3-0.5 us; ldg ~0.15-0.3 us (2 or 4 round trips become 1).
set -u
source "$(dirname "$0")/env.sh"
echo "== R4G_SA_EARLY (sm90a) and R4L_SA_EARLY (ldg) A/B: as is, then 1 / 0 / 1 (ab_define.sh)"
# Each kernel reads only its own generation's define. sm90a: MB 4 at SK 1, 4 and stream-K, MB 3
# e4m3 stream-K, MB 1; ldg: the tables' w4a8 winners.
B=.device/chunks/default R4_AB_SETS="R4G_SA_EARLY=1+R4L_SA_EARLY=1|R4G_SA_EARLY=0+R4L_SA_EARLY=0|R4G_SA_EARLY=1+R4L_SA_EARLY=1" \
R4_AB_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,1,4,2,1,1,4@o@64 w4a8:8,1,4,2,1,1,4@hidden_proj@64 \
w4a8:8,4,4,2,1,1,4@hidden_proj@64 w4a8:8,132,4,1,1,1,4@gate_up@64 w4a8fp8:8,132,3,1,1,1,4@gate_up@48 \
w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:2,2,1,2,0,2,2@o@64 \
w4a8:2,16,1,1,1,2,4@hidden_proj@16 w4a8:2,8,1,1,1,2,4@hidden_proj@32" \
  timeout 190 bash scripts/device/ab_define.sh
echo "== the failing chunk tuples, the chunk sweep (session30_call4.sh)"
timeout 300 bash scripts/device/session30_call4.sh
echo "== SASS of the shared SK bodies (session 29's call 1, part C; its script's quoting fixed in session 30)"
R4_SS_CONFIGS="gemm_w4a8_nt:4,8,1,1,1,2,4 gemm_w4a8_nt:4,4,1,1,1,2,4 gemm_w4a8_nt:2,2,1,2,0,2,4 gemm_w4a8fp8_nt:8,8,1,1,1,1,4" \
  timeout 90 bash scripts/device/sass_sk.sh
