# Session 24, call 6 (diagnosis; kernels as at df6b98d, splitk.h's unroll reverted): where the
# sm90a int8 kernel's M = 64 fixed cost lies. The fixture's races put (8, 1, 4, 2, 1, 4) at about
# 7.9 us + 0.79 us per 128-K stage (16, 40 and 68 stages), and SK 2 / 4 ~5.5 us above that line.
# GEMM alone, hidden_proj (one block per split), as is and with R4G_LESION 1 (no activations), 2
# (no consumer math), 3 (the bare ring), at SK 1 and 4.
set -u
for cfg in "w4a8:8,1,4,2,1,1,4" "w4a8:8,4,4,2,1,1,4"; do
  for d in "" "--define R4G_LESION=1" "--define R4G_LESION=2" "--define R4G_LESION=3"; do
    timeout 60 .device/bin/r4kern --one "$cfg" --shapes hidden_proj --m 64 $d 2>&1 | grep "^one " | grep -vE "checked|race"
  done
done
