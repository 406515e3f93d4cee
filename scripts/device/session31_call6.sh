# Session 31, call 6 (ran at 329adbb on an H100; both experiments measured and removed afterwards,
# so this script needs 329adbb's kernels; pack: R4_PACK_BUILD=build
# scripts/device/pack.sh; rm -f .device/bin/src.tar .device/bin/h200-dflash-2026-11-30.db; carry
# [".device/bin"]): the ldg generation's output stores, 8 bytes wide where C allows, as the sm90a
# epilogue's (R4G_EPI_PACK, on since session 31: MB 4 / 3 tiles 2.5-4% faster).
# - R4_SPLITK_WIDE (kernels/splitk.h): the split-K reductions' four consecutive bf16 outputs in one
#   8-byte store. 53 of the 56 ldg winners of session 31's dflash sweep are split-K.
# - R4L_EPI_PACK (kernels/nv/gemm_w4_ldg.h): the SK 1 epilogue packed across lanes
#   (kernels/nv/epilogue_pack.h); 3 ldg winners are SK 1.
# Prediction (docs/PERF.md "Session 31"): 0.05-0.2 us less per split-K winner (its reduction writes
# 16-128 KB; a warp's four 2-byte stores of one 256-byte span become one), ~0.1-0.3 us per SK 1
# ldg winner at M = 64. Each config is checked over poison before it is timed (ab_define.sh).
set -u
source "$(dirname "$0")/env.sh"
echo "== R4_SPLITK_WIDE A/B: split-K ldg winners (session 31 call 4), cluster path"
R4_AB_SETS="R4_SPLITK_WIDE=1|R4_SPLITK_WIDE=0|R4_SPLITK_WIDE=1" \
R4_AB_CONFIGS="w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,8,1,1,0,2,2@kernel_proj@16 \
w4a8:2,8,2,1,0,2,4@kernel_proj@32 w4a8:8,8,1,1,0,2,2@qkv@16 w4a16_bf16:2,4,1,1,0,2,2@down@16 \
w4a8:2,4,1,2,0,2,2@down@32 w4a8:4,2,1,1,0,2,2@gate_up@16" \
  timeout 240 bash scripts/device/ab_define.sh
cp $OUT/ab.log $OUT/ab-splitk-wide.log
echo "== R4L_EPI_PACK A/B: SK 1 ldg winners"
R4_AB_SETS="R4L_EPI_PACK=1|R4L_EPI_PACK=0|R4L_EPI_PACK=1" \
R4_AB_CONFIGS="w4a8:4,1,1,1,0,2,4@o@64 w4a16_bf16:2,1,1,1,0,2,2@o@64" \
  timeout 100 bash scripts/device/ab_define.sh
