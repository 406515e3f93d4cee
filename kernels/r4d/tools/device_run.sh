#!/bin/bash
# One H200 session for r4d (issue 6): GPU gtests, the Python module built there against the
# machine's python3/pybind11/torch plus the torch test, then the benchmark. Expects the prebuilt
# binaries and src.tar (git archive of the branch) in $1 (default .device/r4d); logs in $OUT.
D=${1:-.device/r4d}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
{
  nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.mem --format=csv
  nvcc --version | tail -1; cmake --version | head -1; python3 --version
  python3 -c "import torch, pybind11; print('torch', torch.__version__, 'pybind11', pybind11.__version__, pybind11.get_cmake_dir())"
  python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])"
} > "$OUT/env.txt" 2>&1

# The Python module, built here (python 3.12), in the background while the gtests run.
(
  set -e
  mkdir -p /tmp/r4d-src && tar -xf "$D/src.tar" -C /tmp/r4d-src
  cmake -S /tmp/r4d-src/kernels/r4d -B /tmp/r4d-py -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v python3)" \
    -Dpybind11_DIR="$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())')" \
    -DR4D_CUDA_ARCHITECTURES=90 -DR4D_TABLES_HEADER="${R4D_PY_TABLES:-/tmp/r4d-src/tests/r4d/standin_tables.hpp}"
  cmake --build /tmp/r4d-py -j 16
) > "$OUT/pybuild.log" 2>&1 &
PB=$!

for t in r4d_launch_gpu_test r4d_graph_gpu_test; do
  timeout 120 "$D/$t" > "$OUT/$t.log" 2>&1
  echo "$t rc=$?" >> "$OUT/summary.txt"
done

wait $PB
echo "pybuild rc=$?" >> "$OUT/summary.txt"
R4D_PYTHON_PATH=/tmp/r4d-py timeout 150 python3 /tmp/r4d-src/tests/r4d/test_r4d_torch.py > "$OUT/torch.log" 2>&1
echo "torch test rc=$?" >> "$OUT/summary.txt"

timeout "${BENCH_S:-90}" "$D/r4d_bench" all 3 16,64 > "$OUT/bench.log" 2>&1
echo "bench rc=$?" >> "$OUT/summary.txt"
cat "$OUT/summary.txt"
tail -3 "$OUT"/r4d_*_gpu_test.log; tail -4 "$OUT/torch.log"; cat "$OUT/bench.log"
