#!/usr/bin/env bash
# Session 43, call 1: the int4 x e4m3 kind's biased weight bytes with the zero point taken off by
# the activations' group sums (R4G_ZSUM, kernels/nv/gemm_w4_sm90a.h; 1 by default in these
# binaries) against the sign-magnitude conversion (--define R4G_ZSUM=0): r4kern --one (checked
# over poison first, then GEMM alone, the quantiser + GEMM pair and "as a race times it") on the
# w4a8fp8 winners of the committed H200 tables, one round of every tuple, a second of gate_up
# M = 16 and 28672 x 4096 M = 16; odd M; every gpu-labelled binary (gpu_tests.sh: the quantiser's
# group sums bit for bit, the fp8 GEMMs on rows off zero mean, r4d through its tables); the SASS
# of gate_up's M <= 16 tuple both ways (opcode counts).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
(
  for z in 0 1; do
    r4_sass w4a8fp8_4_255_1_1_1_4_zsum$z gemm_w4a8fp8_nt 4,255,1,1,1,1,4 -DR4G_ZSUM=$z
  done
  tar -czf "$OUT/sass.tar.gz" -C /tmp/sass .
) >/tmp/sass.log 2>&1 &
sass_pid=$!
{
  echo "#### round 1"
  for c in 4,255,1,1,1,1,4/gate_up/16 4,255,1,1,1,1,4/gate_up/1 4,255,2,1,1,1,4/gate_up/32 \
           8,132,4,1,1,1,4/gate_up/64 4,8,1,1,1,1,4/qkv/16 4,4,1,1,1,1,4/down/16 \
           8,132,4,1,1,1,4/down/64 4,1,1,1,1,1,4/o/16 4,1,4,1,1,1,4/o/64 \
           4,255,1,1,1,1,4/28672x4096/16; do
    IFS=/ read -r t shape m <<<"$c"
    r4_one "w4a8fp8:$t" "$shape" "$m" R4G_ZSUM=0
    r4_one "w4a8fp8:$t" "$shape" "$m"
  done
  echo "#### round 2"
  for c in 4,255,1,1,1,1,4/gate_up/16 4,255,1,1,1,1,4/28672x4096/16; do
    IFS=/ read -r t shape m <<<"$c"
    r4_one "w4a8fp8:$t" "$shape" "$m" R4G_ZSUM=0
    r4_one "w4a8fp8:$t" "$shape" "$m"
  done
  echo "#### odd M, ZSUM on"
  r4_one w4a8fp8:4,255,1,1,1,1,4 gate_up 7
  r4_one w4a8fp8:4,255,3,1,1,1,4 gate_up 33
  r4_one w4a8fp8:8,132,3,1,0,1,4 down 47
  echo "#### gpu-labelled binaries"
  bash scripts/device/gpu_tests.sh
} 2>&1 | tee -a "$OUT/runs.log"
wait $sass_pid
cat /tmp/sass.log >>"$OUT/runs.log"
for z in 0 1; do
  f=/tmp/sass/w4a8fp8_4_255_1_1_1_4_zsum$z.opcodes
  echo "== SASS opcodes, ZSUM=$z: $(awk '{s += $1} END {print s}' "$f") in all"
  head -14 "$f"
done 2>&1 | tee -a "$OUT/runs.log"
