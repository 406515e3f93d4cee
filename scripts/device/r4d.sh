#!/usr/bin/env bash
# r4d's acceptance runs on the H200 (through the device tool), from the repository root, with the
# binaries built here carried in .device/bin (scripts/device/pack.sh); appends to $OUT/r4d.log:
#   1. r4d's gpu-labelled gtests (its kernels compiled by nvcc here, with the committed tables);
#   2. the Python module built there against the machine's python3, pybind11 and torch, from
#      src.tar (git archive of HEAD), with the same tables, and the torch test;
#   3. r4d_bench: each table row's config through r4d against the tuner's NVRTC build (and the
#      stored sweep: R4D_BENCH_DB, default the committed tables' run in .device/bin; a database
#      without the tables' run, or none, leaves that column out).
# Called by final.sh; runs alone for a change that touches only r4d or the tables.
# R4D_SKIP_EXAMPLE=1 leaves out the drafter end-to-end run, R4D_SKIP_BENCH=1 the bench.
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/r4d.log"
{
  # final.sh runs every gpu-labelled test first and says so with R4D_GTESTS_DONE=1.
  if [[ ${R4D_GTESTS_DONE:-0} != 1 ]]; then
    echo "== r4d gpu-labelled tests"
    for t in r4d_launch_gpu_test r4d_graph_gpu_test; do
      timeout 180 $B/$t --gtest_brief=1 2>&1 | tail -4; echo "$t rc=${PIPESTATUS[0]}"
    done
  fi
  echo "== r4d: python module (log pybuild.log)"
  (
    set -e
    rm -rf /tmp/r4d-src /tmp/r4d-py && mkdir -p /tmp/r4d-src && tar -xf $B/src.tar -C /tmp/r4d-src
    cmake -S /tmp/r4d-src/kernels/r4d -B /tmp/r4d-py -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DPython_EXECUTABLE="$(command -v python3)" \
      -Dpybind11_DIR="$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())')" \
      -DR4D_CUDA_ARCHITECTURES=90
    cmake --build /tmp/r4d-py -j 16
  ) >"$OUT/pybuild.log" 2>&1
  echo "python module build rc=$?"
  R4D_PYTHON_PATH=/tmp/r4d-py timeout 200 python3 /tmp/r4d-src/tests/r4d/test_r4d_torch.py 2>&1 | tail -8
  echo "torch test rc=${PIPESTATUS[0]}"
  echo "== r4d_torch: custom ops, fake tensors, modules, compile + CUDA graph (issue 13)"
  if [[ ${R4D_FP8_DIAG:-0} == 1 ]]; then
    R4D_PYTHON_PATH=/tmp/r4d-py timeout 120 python3 /tmp/r4d-src/scripts/device/fp8_diag2.py 2>&1 | tail -60
  fi
  if [[ ${R4D_SKIP_OPS:-0} != 1 ]]; then
    R4D_PYTHON_PATH=/tmp/r4d-py timeout 200 python3 /tmp/r4d-src/tests/r4d/test_r4d_torch_ops.py 2>&1 | tail -40
    echo "torch ops test rc=${PIPESTATUS[0]}"
  fi
  if [[ ${R4D_SKIP_EXAMPLE:-0} != 1 ]]; then
    echo "== end to end: drafter checkpoint -> r4tune quant -> r4d_torch stack (torch_stack.py)"
    R=$PWD
    (
      set -e
      python3 /tmp/r4d-src/scripts/make_drafter_checkpoint.py --out /tmp/dr.safetensors \
        --gptq /tmp/dr_gptq.safetensors
      "$R/$B/r4tune" quant int4 /tmp/dr.safetensors /tmp/dr_int4.safetensors --layout sm80
      "$R/$B/r4tune" quant mxfp4 /tmp/dr.safetensors /tmp/dr_mx.safetensors --layout mx_sm89
      "$R/$B/r4tune" quant gptq /tmp/dr_gptq.safetensors /tmp/dr_gptq_out.safetensors
    ) 2>&1 | tail -20
    timeout 200 python3 /tmp/r4d-src/kernels/r4d/example/torch_stack.py --bf16 /tmp/dr.safetensors \
      --int4 /tmp/dr_int4.safetensors --w4a8fp8 /tmp/dr_int4.safetensors \
      --gptq /tmp/dr_gptq_out.safetensors --mxfp4 /tmp/dr_mx.safetensors \
      --M 1,16,64,100 --iters 30 --r4d-path /tmp/r4d-py 2>&1 | tail -150
    echo "torch_stack rc=${PIPESTATUS[0]}"
  fi
  if [[ ${R4D_SKIP_BENCH:-0} != 1 ]]; then
    echo "== r4d_bench: r4d against the tuner's NVRTC build and the stored sweep, every table row"
    db=${R4D_BENCH_DB:-$B/h200-dflash-2026-11-30.db}
    [[ -f $db ]] || db=""
    timeout 400 $B/r4d_bench all 15 16,32,48,64 $db 2>&1
    echo "bench rc=$?"
  fi
} >>"$L" 2>&1
grep -E "rc=|ratio|within" "$L"
