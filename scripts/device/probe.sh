#!/usr/bin/env bash
# A first look on the H200 after a kernel or GPU-layer change, in one device call: the gpu tests,
# a dflash sweep with floors and steps, the PDL tests, then the sm90a generation through r4kern (a
# smoke run that must finish quickly before the longer check and timing), and the SASS of one
# sm90a config. Each step has its own timeout so that one hang costs only its own minutes.
# Usage (through the device tool, binaries from scripts/device/pack.sh in .device/bin):
#   bash scripts/device/probe.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/probe.log"
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep=' | ') for r in c.execute(sys.argv[2])]" "$@"; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  echo "== gpu tests"
  for t in tuner_gpu_runtime_test kernels_gpu_check_test; do
    timeout 120 $B/$t --gtest_brief=1 2>&1 | tail -6; echo "$t rc=${PIPESTATUS[0]}"
  done
  echo "== dflash sweep (first generation), floors and steps"
  timeout 300 /usr/bin/time -f "dflash wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db \
    --plain 2>&1 | grep -vE "^(compile|measure) "
  echo "== PDL tests"
  timeout 150 $B/tuner_measure_pdl_gpu_test 2>&1 | grep -vE "^\[ (RUN|  +OK) " | tail -30
  echo "pdl rc=${PIPESTATUS[0]}"
  echo "== sm90a smoke"
  timeout 90 $B/r4kern --check --gen 1 --stride 40 --shapes qkv --out /tmp 2>&1 | tail -12
  smoke=${PIPESTATUS[0]}; echo "smoke rc=$smoke"
  if [[ $smoke == 0 || $smoke == 1 ]]; then
    echo "== sm90a check (every 3rd config) and timing"
    timeout 360 $B/r4kern --check --time --gen 1 --stride 3 --time-budget 90 --out "$OUT" 2>&1 |
      grep -vE "^(timed|checked) " | tail -80
    echo "r4kern rc=${PIPESTATUS[0]}"
  fi
  echo "== SASS of one sm90a config"
  mkdir -p /tmp/src && tar -xf $B/src.tar -C /tmp/src
  nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -I/tmp/src -cubin -o /tmp/g1.cubin \
    -DR4_GEN=1 -DR4_WV=8 -DR4_SK=1 -DR4_MB=1 -DR4_NPW=1 -DR4_NT=1 -DR4_ST=8 -DR4_A_BF16=0 \
    -x cu /tmp/src/kernels/gemm_w4a16_nt.cu 2>&1 | tail -3
  cuobjdump -sass /tmp/g1.cubin > "$OUT/g1_w4a16_8_1_1_1_1_8.sass" 2>&1
  grep -cE "HGMMA" "$OUT/g1_w4a16_8_1_1_1_1_8.sass" | sed 's/^/HGMMA count: /'
  grep -cE "LDL|STL" "$OUT/g1_w4a16_8_1_1_1_1_8.sass" | sed 's/^/local memory ops: /'
} >"$L" 2>&1
gzip -c /tmp/d.db >"$OUT/dflash.db.gz" 2>/dev/null
grep -E "rc=|wall|PASSED|FAILED|floor|step |HGMMA|local memory|correctness|ALL PASS|FAIL |caught|ceiling" "$L" | head -80
