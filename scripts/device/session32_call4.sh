# Session 32, call 4 (carry [".device/r4d"]: call 3's r4tune and r4d_bench, src.tar of this
# commit): the drafter end to end again, after torch_stack.py's block-fp8 baseline learned to pad
# M to a multiple of 16 where cuBLASLt refuses it (call 3: M = 1 "fp8 baseline failed:
# CUBLAS_STATUS_NOT_SUPPORTED" in all four formats), as the tuner's baseline does. The torch tests
# again with it (the module is rebuilt from src.tar); the bench is left out (call 3 ran it).
set -u
export B=.device/r4d
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
R4D_GTESTS_DONE=1 R4D_SKIP_BENCH=1 timeout 500 bash scripts/device/r4d.sh
grep -E "step:" $OUT/r4d.log
