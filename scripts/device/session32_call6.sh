# Session 32, call 6 (carry [".device/bin"], call 2's pack): where o_proj's (5120 x 2048) M = 64
# time goes (call 5: every config streams at 9-17% of DRAM peak; the 128-row sm90a tile at SK 1
# 10.86 us, the read floor 3.43). Lesions (kernels/nv/gemm_w4_sm90a.h R4G_LESION; timed unchecked,
# r4kern labels them): 0 as is, 8 the launch alone, 4 no epilogue, 2 no consumer math, 6 neither,
# 1 no activation staging; gate_up's MB 4 SK 1 tile (68 blocks, 1 MB each) for contrast.
set -u
source "$(dirname "$0")/env.sh"
R4_ONE="w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8:8,1,4,2,1,1,4@gate_up@64" \
R4_LESIONS="0 8 4 2 6 1" timeout 500 bash scripts/device/lesion.sh
cat $OUT/lesion.log
