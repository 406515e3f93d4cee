# Session 32, call 3 (the same pack as call 2): r4d's
# Python module built there against the machine's torch, its torch tests (custom ops, fake tensors,
# torch.compile + CUDA graph), the drafter end to end, and r4d_bench (every table row through r4d
# against the tuner's NVRTC build). Call 2 ran the gpu-labelled gtests.
# Carry [".device/r4d"]: r4tune, r4d_bench and src.tar (the gtest binaries stay out: 64 MiB).
set -u
export B=.device/r4d
source "$(dirname "$0")/env.sh"
tar -xJf tests/fixtures/h200-dflash-2026-11-30.db.tar.xz -C $B
nvidia-smi --query-gpu=name --format=csv,noheader
R4D_GTESTS_DONE=1 timeout 560 bash scripts/device/r4d.sh
