# Session 32, call 3 (the same pack as call 2, src.tar and the fixture database included): r4d's
# Python module built there against the machine's torch, its torch tests (custom ops, fake tensors,
# torch.compile + CUDA graph), the drafter end to end, and r4d_bench (every table row through r4d
# against the tuner's NVRTC build). Call 2 ran the gpu-labelled gtests.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
R4D_GTESTS_DONE=1 timeout 560 bash scripts/device/r4d.sh
