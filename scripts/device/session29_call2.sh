# Session 29, call 2 (NOT RUN: session 29 had no device; after call 1, same pack). The sm90a
# generation's "fixed part": session 24 found a 64 x 256 tile spends 6-11 us that do not scale
# with K, and the fixture's races put w4a8 (8, 1, 4, 2, *, 4) at M = 64 on ~9 us + 0.75 us per
# stage (quant pair included; docs/PERF.md "Session 29"). That part is what loses o_proj, qkv and
# kernel_proj at M = 48 / 64 to the ldg generation and to bf16. Lesions (R4G_LESION, timed
# unchecked): 0 as is, 4 no epilogue, 3 the bare ring, 7 the bare ring without epilogue, 8 the
# launch alone (blocks exit after initialising their barriers). Stages per block: hidden_proj SK 1
# 40 (one block), SK 4 10 (four), o_proj SK 1 16 (20 blocks), gate_up SK 1 40 (68 blocks).
# Reading: 8 = launch + shared-memory allocation; 7 - 8 = the bare ring, whose line over the stage
# counts gives its own fill/drain; 3 - 7 and 0 - 4 = the epilogue; 0 - 3 = the consumers' math
# beyond what the ring hides.
set -u
source "$(dirname "$0")/env.sh"
R4_ONE="w4a8:8,1,4,2,1,1,4@hidden_proj@64 w4a8:8,4,4,2,1,1,4@hidden_proj@64 w4a8:8,1,4,2,1,1,4@o@64 w4a8:8,1,4,2,1,1,4@gate_up@64" \
  R4_LESIONS="0 4 3 7 8" timeout 560 bash scripts/device/lesion.sh
grep -E "^one|r4kern:" $OUT/lesion.log
