#!/usr/bin/env bash
# Session 42, call 1: the int4 x e4m3 kind's zero point through the tensor core (R4G_ZPW,
# kernels/nv/gemm_w4_sm90a.h at 955b7d3 / 2db50f5, 1 in those binaries; removed in c02902c)
# against the sign-magnitude conversion it replaces (--define R4G_ZPW=0): r4kern --one (checked
# over poison first, then GEMM alone, the quantiser + GEMM pair and "as a race times it"), two
# rounds alternating, on the w4a8fp8 winners of
# the committed H200 tables (configs/generated/h200_tables.hpp); odd M; the SASS of gate_up's
# M <= 16 tuple both ways (opcode counts). Then the fp8 gpu-labelled tests, and, only if ZPW is at
# least 2% faster as a race times it on gate_up M = 16 (mean of the two rounds), the dflash and
# llama3-8b cold sweeps with it (sweeps.sh, no warm run). The SASS goes through env.sh r4_sass since
# the session's review; the tarballs committed from calls 1-2 name their opcode counts
# opcodes_zpw{0,1}.txt.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/runs.log"
# The SASS, on the CPU while the GPU runs the A/B (one nvcc at a time; the timing loop is one host
# thread of 16 cores).
(
  for z in 0 1; do
    r4_sass w4a8fp8_4_255_1_1_1_4_zpw$z gemm_w4a8fp8_nt 4,255,1,1,1,1,4 -DR4G_ZPW=$z
  done
  tar -czf "$OUT/sass.tar.gz" -C /tmp/sass .
) >/tmp/sass.log 2>&1 &
sass_pid=$!
{
  for round in 1 2; do
    echo "#### round $round"
    for c in 4,255,1,1,1,1,4/gate_up/16 4,255,1,1,1,1,4/gate_up/1 4,255,2,1,1,1,4/gate_up/32 \
             8,132,4,1,1,1,4/gate_up/64 4,8,1,1,1,1,4/qkv/16 4,4,1,1,1,1,4/down/16 \
             8,132,4,1,1,1,4/down/64 4,1,1,1,1,1,4/o/16 4,255,1,1,1,1,4/28672x4096/16; do
      IFS=/ read -r t shape m <<<"$c"
      r4_one "w4a8fp8:$t" "$shape" "$m" R4G_ZPW=0
      r4_one "w4a8fp8:$t" "$shape" "$m"
    done
  done
  echo "#### odd M, ZPW on"
  r4_one w4a8fp8:4,255,1,1,1,1,4 gate_up 7
  r4_one w4a8fp8:4,255,3,1,1,1,4 gate_up 33
  r4_one w4a8fp8:8,132,3,1,0,1,4 down 47
  echo "== kernels_fp8_gemm_gpu_test"
  timeout 120 $B/kernels_fp8_gemm_gpu_test 2>&1 | tail -4
  echo "== kernels_gpu_check_test"
  timeout 120 $B/kernels_gpu_check_test 2>&1 | tail -4
} 2>&1 | tee -a "$OUT/runs.log"
wait $sass_pid
cat /tmp/sass.log >>"$OUT/runs.log"
for z in 0 1; do
  f=/tmp/sass/w4a8fp8_4_255_1_1_1_4_zpw$z.opcodes
  echo "== SASS opcodes, ZPW=$z: $(awk '{s += $1} END {print s}' "$f") in all"
  head -12 "$f"
done 2>&1 | tee -a "$OUT/runs.log"
# gate_up M = 16 as a race times it: the mean of the two rounds, base against ZPW.
gain=$(python3 - "$OUT/runs.log" <<'EOF'
import re, sys
cur, t = None, {"0": [], "1": []}
for line in open(sys.argv[1]):
    if line.startswith("## "):
        cur = "0" if "R4G_ZPW=0" in line else "1"
        cur = cur if "4,255,1,1,1,1,4 gate_up M=16" in line else None
    m = re.search(r"as a race times it.*: ([0-9.]+) us", line)
    if cur and m:
        t[cur].append(float(m.group(1)))
if t["0"] and t["1"]:
    b, z = sum(t["0"]) / len(t["0"]), sum(t["1"]) / len(t["1"])
    print(f"{b:.2f} {z:.2f} {z / b:.4f}")
EOF
)
echo "gate_up M=16 race, base / ZPW / ratio: $gain" | tee -a "$OUT/runs.log"
ratio=${gain##* }
if [[ -n $gain ]] && python3 -c "import sys; sys.exit(0 if float('$ratio') <= 0.98 else 1)"; then
  R4_SKIP_WARM=1 R4_COLD_TIMEOUT=200 R4_LLAMA_TIMEOUT=160 timeout 420 bash scripts/device/sweeps.sh
else
  echo "ZPW not 2% faster on gate_up M = 16: no sweep" | tee -a "$OUT/runs.log"
fi
