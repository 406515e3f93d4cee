# Session 30, call 1: binaries of HEAD (R4_PACK_BUILD=build bash scripts/device/pack.sh; then
# rm -f .device/bin/src.tar .device/bin/h200-dflash-2026-11-30.db; carry [".device/bin"], 44 MB).
#  1. session 29's call 2: the sm90a fixed-part lesions (0 / 4 / 3 / 7 / 8 on four configs).
#  2. every gpu-labelled test binary at this commit (scripts/device/gpu_tests.sh).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== 1: lesions"
bash scripts/device/session29_call2.sh
echo "== 2: gpu-labelled tests"
timeout 300 bash scripts/device/gpu_tests.sh
