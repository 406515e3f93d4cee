#!/usr/bin/env bash
# Session 35, call 3: r4d with the tables of call 2's dflash run (H100, 95afe22; the shipped tables
# are the H200's and have no MXFP4 sm90a row), so that r4d serves MXFP4 through its sm90a configs
# and ActOrder::sm90a_mx: r4d_bench's MXFP4 rows (built here with -DR4D_TABLES_HEADER=$T) against
# the tuner's NVRTC build and call 2's stored medians; the Python module built there with the same
# tables, then its torch ops test (every format against its reference, compile + CUDA graph).
set -u
source "$(dirname "$0")/env.sh"
T=docs/device-logs/2026-12-06-session35-95afe22-h100-dflash-tables.hpp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
xz -dc $B/d2.db.xz >/tmp/d2.db
echo "== r4d_bench mxfp4a8fp8 (tables $T)"
timeout 170 $B/r4d_bench mxfp4a8fp8 9 16,32,48,64 /tmp/d2.db 2>&1 | tee "$OUT/r4d_bench_mx.log" | tail -32
echo "bench rc=${PIPESTATUS[0]}"
echo "== r4d Python module with the same tables (log pybuild.log)"
(
  set -e
  rm -rf /tmp/r4d-src /tmp/r4d-py && mkdir -p /tmp/r4d-src && tar -xf $B/src.tar -C /tmp/r4d-src
  cmake -S /tmp/r4d-src/kernels/r4d -B /tmp/r4d-py -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v python3)" \
    -Dpybind11_DIR="$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())')" \
    -DR4D_CUDA_ARCHITECTURES=90 -DR4D_TABLES_HEADER=/tmp/r4d-src/$T
  cmake --build /tmp/r4d-py -j 16
) >"$OUT/pybuild.log" 2>&1
echo "python module build rc=$?"
tail -3 "$OUT/pybuild.log"
R4D_PYTHON_PATH=/tmp/r4d-py timeout 150 python3 /tmp/r4d-src/tests/r4d/test_r4d_torch_ops.py 2>&1 | tail -30
echo "torch ops test rc=${PIPESTATUS[0]}"
R4D_PYTHON_PATH=/tmp/r4d-py python3 -c "
import sys; sys.path.insert(0, '/tmp/r4d-py'); import r4d
print('r4d tables:', r4d.table_info() if hasattr(r4d, 'table_info') else '?')
print('mxfp4 gate_up M=64 config:', r4d.config_for(17408, 5120, 64, dtype='mxfp4a8fp8'))
print('its order:', r4d.act_order(r4d.config_for(17408, 5120, 64, dtype='mxfp4a8fp8'), 'mxfp4a8fp8'))
" 2>&1 | tail -4
echo "== r4d_bench w4a8fp8 (same tables)"
timeout 120 $B/r4d_bench w4a8fp8 9 16,32,48,64 /tmp/d2.db 2>&1 | tail -28
echo "bench rc=${PIPESTATUS[0]}"
echo "== A/B R4G_ACT_SPLIT 0 / 1 (r4kern --one, checked then timed; two rounds each way)"
for r in 1 2; do
  R4_AB_CONFIGS="w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,2,1,2,0,1,4@gate_up@8 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8:4,1,1,1,1,1,4@gate_up@16 mxfp4:4,1,1,1,0,1,4@gate_up@16 w4a8:4,4,1,1,1,1,8@down@16" \
    R4_AB_SETS="R4G_ACT_SPLIT=1" timeout 120 bash scripts/device/ab_define.sh 2>&1 | grep -E "as a race|wrong|error"
done
