# Session 27, call 1 (NOT RUN in session 27: no device was lent; for the next session's first call):
# split-K at launch (kernels/splitk.h R4_SK 0: SK 2, 4, 8 of a config share one body that reads the
# split count from gridDim.y) against the same config compiled apart (--define R4_SK=<its SK>, which
# r4kern --one substitutes for the config's R4_SK), on split-K winners of the committed sweep
# (3b4b43e) across ldg / sm90a and the four kinds, three rounds, each run checked then timed; then
# every gpu-labelled test (the shared bodies, r4d's launch and graph tests over the tables' rows).
set -u
source "$(dirname "$0")/env.sh"
cfgs="w4a16_bf16:2,8,1,1,1,2,4@hidden_proj@32 w4a8:4,8,1,1,1,2,4@kernel_proj@16
w4a8fp8:4,8,1,1,0,1,4@kernel_proj@16 w4a8:4,4,1,1,1,2,4@o@16 mxfp4:4,8,1,1,1,2,2@o@16
w4a8:2,8,1,1,1,2,2@qkv@16 w4a8fp8:8,8,1,1,1,1,4@down@16 w4a16_bf16:4,2,1,1,0,2,2@o@64
w4a8:2,2,1,2,0,2,4@down@48 w4a8fp8:4,4,2,2,0,1,4@qkv@64"
for round in 1 2 3; do
  for one in $cfgs; do
    sk=$(echo "$one" | cut -d: -f2 | cut -d, -f2)
    R4_AB_SETS="R4_SK=$sk" R4_AB_CONFIGS="$one" timeout 40 bash scripts/device/ab_define.sh \
      >/dev/null 2>&1
    echo "# round $round $one" >> $OUT/ab-sk.log
    cat $OUT/ab.log >> $OUT/ab-sk.log
  done
done
rm -f $OUT/ab.log
sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' $OUT/ab-sk.log |
  cut -c1-170
timeout 240 bash scripts/device/gpu_tests.sh
