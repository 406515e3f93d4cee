# Session 32, call 2 (pack: R4_PACK_BUILD=build scripts/device/pack.sh, then src.tar to .device/r4d
# with r4tune and r4d_bench, the fixture database dropped; carry [".device/bin"]): the
# acceptance sweeps at the final kernels, with the stream-K segment end's stores packed
# (R4G_EPI_PACK_SK, default 1 since call 1's A/B) and the sm90a row scales taken from one helper
# (r4g_row_scales; the PTX of 28 configs the same instruction for instruction), then every
# gpu-labelled binary. Call 3 (scripts/device/r4d.sh) follows on the same pack.
bash "$(dirname "$0")/acceptance.sh"
