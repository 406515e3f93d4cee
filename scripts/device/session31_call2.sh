# Session 31, calls 2 and 4 (pack: R4_PACK_BUILD=build scripts/device/pack.sh; rm -f .device/bin/src.tar
# .device/bin/h200-dflash-2026-11-30.db; carry [".device/bin"]): the acceptance sweeps with the
# epilogue's row scales loaded at once (R4G_SA_EARLY / R4L_SA_EARLY, default 1 since call 1's A/B)
# and the sm90a scale chunks on by default (R4_SM90A_SCALE_CHUNKS; call 1's chunk sweep: 0 failed
# of 47,604), then every gpu-labelled binary (the runtime test's static-shared kernel fixed).
# Call 4 reruns it after R4G_EPI_PACK went to 1 (call 3's A/B).
bash "$(dirname "$0")/acceptance.sh"
