# Session 21, call 7 (branch exp/st8): 8-byte output stores in the split-K reduction (.device/bin/
# r4kern, built from the branch) against the main line's (.device/bin/base/r4kern), same call.
set -u
cfgs="w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@1 w4a16_bf16:2,16,1,1,1,2,4@hidden_proj@16 w4a16_bf16:2,8,1,1,1,2,4@kernel_proj@1 w4a16_bf16:2,4,1,1,0,2,2@o@1 w4a16_bf16:2,4,1,1,0,2,2@o@16 w4a16_bf16:4,8,1,1,0,2,2@qkv@1 w4a16_bf16:2,8,1,2,0,2,2@qkv@16 w4a16_bf16:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@1 w4a8:4,2,1,1,0,2,2@gate_up@16 w4a8:2,4,1,1,0,2,2@down@16 w4a8:2,8,1,1,0,2,2@qkv@16"
for one in $cfgs; do
  IFS=@ read -r cfg shape m <<<"$one"
  for b in .device/bin/base .device/bin; do
    echo "== $b"
    timeout 60 $b/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one "
  done
done > $OUT/st8-ab.txt 2>&1
grep -E "==|us \(|race|FAIL" $OUT/st8-ab.txt | sed -e 's/ (activations and outputs pooled[^)]*)//' | cut -c1-150
