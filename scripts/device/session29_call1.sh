# Session 29, call 1 (NOT RUN: session 29 had no device; the next session's first call). Binaries of
# the default build (scale chunks off). Pack from a committed tree, then drop what the call
# rebuilds itself (the carry limit is 64 MiB; this leaves ~44 MB):
#   R4_PACK_BUILD=build bash scripts/device/pack.sh
#   rm -f .device/bin/src.tar .device/bin/h200-dflash-2026-11-30.db   # carry [".device/bin"]
# Calls 1 and 2 share that pack: run 2 right after 1, while the machine is warm.
#  A. session28_call3.sh: r4d's launch and graph tests on the refreshed tables, then r4d_bench
#     (issue 12: "r4d within 3% of the tuner on every table row").
#  C. sass_sk.sh: shared SK body against the same config compiled apart (session 27's 0.6%).
# Part B, the lesions, is call 2 (session29_call2.sh); the scale-chunk probe is call 3.
set -u
source "$(dirname "$0")/env.sh"
echo "== C: SASS of the shared SK bodies (8 nvcc compiles)"
R4_SS_CONFIGS="gemm_w4a8_nt:4,8,1,1,1,2,4 gemm_w4a8_nt:4,4,1,1,1,2,4 gemm_w4a8_nt:2,2,1,2,0,2,4 gemm_w4a8fp8_nt:8,8,1,1,1,1,4" \
  timeout 150 bash scripts/device/sass_sk.sh
echo "== A: r4d on the refreshed tables"
timeout 420 bash scripts/device/session28_call3.sh
