#!/usr/bin/env bash
# The main job: build r4tune, list the GPUs, and compile the kernel family for the GPU that is
# present (sm_90 where there is none). Becomes `r4tune sweep configs/dflash.toml` once the sweep
# lands.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
./build/tuner/r4tune devices
arch=$(./build/tuner/r4tune devices --json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(d[0]["arch"] if d else "sm_90")')
./build/tuner/r4tune compile tests/tuner/data/axpy.cu --arch "$arch"
