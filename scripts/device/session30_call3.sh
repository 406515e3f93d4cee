# Session 30, call 3 (same pack as call 1): r4d_bench, every table row through r4d against the
# tuner's build of the same config and the committed fixture (issue 12: "within 3%"), then the
# SASS of the shared SK bodies (session 29's call 1, part C).
set -u
source "$(dirname "$0")/env.sh"
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
timeout 220 $B/r4d_bench all 15 16,32,48,64 $B/h200-dflash-2026-11-30.db > $OUT/r4d_bench.log 2>&1
echo "bench rc=$?"
grep -E "ratio" $OUT/r4d_bench.log
echo "== SASS of the shared SK bodies (8 nvcc compiles)"
R4_SS_CONFIGS="gemm_w4a8_nt:4,8,1,1,1,2,4 gemm_w4a8_nt:4,4,1,1,1,2,4 gemm_w4a8_nt:2,2,1,2,0,2,4 gemm_w4a8fp8_nt:8,8,1,1,1,1,4" \
  timeout 200 bash scripts/device/sass_sk.sh
