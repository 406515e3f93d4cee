# Session 32, call 1 (written in session 31; pack: R4_PACK_BUILD=build
# scripts/device/pack.sh; rm -f .device/bin/src.tar .device/bin/h200-dflash-2026-11-30.db; carry
# [".device/bin"]): R4G_EPI_PACK_SK, the stream-K segment end's tile stores packed across lanes
# into 8-byte stores, as the SK 1 epilogue's are since session 31 (R4G_EPI_PACK: MB 4 / 3 tiles
# 2.5-4% faster on an H100). Stream-K wins gate_up and down at M = 48 / 64, and on the H100 w4a8fp8
# down M = 64 lost to block-fp8 by 0.4 us (25.87 against 25.48, session 31 call 4).
# Prediction (docs/PERF.md "Session 31"): 0.3-0.8 us less per MB 4 stream-K config (a tile's last
# contributor stores it as the SK 1 epilogue does; the other contributors' f32 slots are unchanged),
# less at MB 3. Each config is checked over poison before it is timed (ab_define.sh). Registers
# (NVRTC, (8, 132, 4, 1, 1, 4) w4a8): 128 -> 134, 0 spills, one 384-thread block per SM either way.
set -u
source "$(dirname "$0")/env.sh"
R4_AB_SETS="R4G_EPI_PACK_SK=1|R4G_EPI_PACK_SK=0|R4G_EPI_PACK_SK=1" \
R4_AB_CONFIGS="w4a8:8,132,4,1,1,1,4@gate_up@64 w4a8:8,132,4,1,1,1,4@down@64 \
w4a8fp8:8,132,4,1,1,1,4@down@64 w4a8fp8:8,132,4,1,1,1,4@gate_up@64 w4a8fp8:8,132,3,1,1,1,4@gate_up@48 \
w4a8fp8:8,132,3,1,0,1,4@down@48" \
  timeout 200 bash scripts/device/ab_define.sh
# Then the sweep's view, on the same machine (carry also ".device/pksk": this commit's r4tune
# built with R4G_EPI_PACK_SK 1 in the kernel header, then reverted): dflash cold twice, packed
# stream-K ends first, then the default; winners compared per (kernel, band).
bash scripts/device/sweep_ab.sh pksk bin 2
