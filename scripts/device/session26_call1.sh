# Session 26, call 1: scale chunks in the sm90a generation (R4G_SCHUNK, default 1: one bulk copy of
# ST groups' scales per slot every ST stages, into a scale ring, instead of a 64-byte copy per slot
# and stage) against the old per-stage copies (R4G_SCHUNK=0), on the sm90a winners and near
# winners of the committed sweep (3b4b43e), each checked then timed by r4kern --one; then the bare
# ring (R4G_LESION 3) both ways.
set -u
source "$(dirname "$0")/env.sh"
R4_AB_SETS="R4G_SCHUNK=0" R4_AB_CONFIGS="w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,2,1,2,1,1,4@gate_up@16 w4a8:8,132,4,1,1,1,4@gate_up@64 w4a8:8,132,4,1,1,1,4@down@64 w4a8:8,132,3,1,1,1,4@gate_up@48 w4a16_bf16:8,132,2,2,1,1,4@gate_up@32 w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8fp8:4,8,1,1,1,1,8@qkv@16 w4a8fp8:4,4,3,1,1,1,4@qkv@48 w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:4,4,1,1,1,1,6@qkv@16 w4a16_bf16:8,2,2,1,1,1,6@gate_up@64 w4a8fp8:8,132,4,1,1,1,4@down@64" \
  timeout 330 bash scripts/device/ab_define.sh > $OUT/ab-run.txt 2>&1
mv $OUT/ab.log $OUT/ab-chunks.log
R4_AB_SETS="R4G_LESION=3|R4G_LESION=3+R4G_SCHUNK=0" R4_AB_CONFIGS="w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:4,2,1,2,0,1,4@gate_up@1" \
  timeout 120 bash scripts/device/ab_define.sh > $OUT/ab-run2.txt 2>&1
mv $OUT/ab.log $OUT/ab-lesion.log
sed -e 's/ (activations and outputs pooled[^)]*)//' -e 's/, cluster split-K.*//' $OUT/ab-chunks.log $OUT/ab-lesion.log | cut -c1-170
