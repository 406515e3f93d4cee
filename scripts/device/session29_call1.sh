# Session 29, call 1 (NOT RUN: session 29 had no device; the next session's first call). Binaries of
# the default build (scale chunks off), packed by scripts/device/pack.sh. Three parts, each logged:
#  A. session28_call3.sh: r4d's launch and graph tests on the refreshed tables, then r4d_bench
#     (issue 12: "r4d within 3% of the tuner on every table row").
#  B. the sm90a generation's "fixed part" (session 24: a 64 x 256 tile spends 6-11 us that do not
#     scale with K): lesions 0 (as is), 4 (no epilogue), 3 (bare ring), 7 (bare ring, no epilogue),
#     8 (launch and barrier init only), at 40 stages (SK 1) and 10 (SK 4) per block on hidden_proj
#     and at 68 blocks on gate_up, M = 64.
#  C. sass_sk.sh: shared SK body against the same config compiled apart (session 27's 0.6%).
set -u
source "$(dirname "$0")/env.sh"
echo "== A: r4d on the refreshed tables"
timeout 330 bash scripts/device/session28_call3.sh
echo "== B: the fixed part (r4kern --one, GEMM alone)"
R4_ONE="w4a8:8,1,4,2,1,1,4@hidden_proj@64 w4a8:8,4,4,2,1,1,4@hidden_proj@64 w4a8:8,1,4,2,1,1,4@gate_up@64" \
  R4_LESIONS="0 4 3 7 8" timeout 200 bash scripts/device/lesion.sh
grep -E "^one|r4kern:" $OUT/lesion.log
echo "== C: SASS of the shared SK bodies"
R4_SS_CONFIGS="gemm_w4a8_nt:4,8,1,1,1,2,4 gemm_w4a8_nt:4,4,1,1,1,2,4 gemm_w4a8_nt:2,2,1,2,0,2,4 gemm_w4a8fp8_nt:8,8,1,1,1,1,4" \
  timeout 60 bash scripts/device/sass_sk.sh
