# Session 32, call 7 (pack: R4_PACK_BUILD=build scripts/device/pack.sh, src.tar and the fixture
# database dropped; carry [".device/bin"]): sm90a rings of 12 and 16 stages at SK 1 (kernels/
# config.hpp is_valid_sm90a; the kernel is unchanged, its PTX for every existing tuple too). First
# o_proj M = 64 at ST 8 / 12 / 16 (r4kern --one, checked over poison, then timed), then the
# acceptance sweeps with the larger space (dflash cold and warm, llama3-8b cold): every new tuple
# verified in the race, and the race says where the deeper rings win. The gpu-labelled tests ran in
# call 2 on the same kernel code (986e218); the device budget leaves no room for them here.
# Prediction: o_proj (16 groups of K, 80 blocks) at ST 16 issues its whole K before the PDL wait,
# one round trip instead of two: 10.86 -> 8.5-9.5 us at M = 64, below block-fp8's 9.25.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
for one in "w4a8:4,1,2,2,1,1,8@o@64" "w4a8:4,1,2,2,1,1,12@o@64" "w4a8:4,1,2,2,1,1,16@o@64" \
           "w4a8fp8:8,1,2,1,1,1,8@o@64" "w4a8fp8:8,1,2,1,1,1,16@o@64" "w4a8:4,1,2,2,1,1,16@o@64"; do
  IFS=@ read -r cfg shape m <<<"$one"
  timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one |error" | head -4
done | tee "$OUT/ab.log"
echo "== sweeps (dflash cold, warm; llama3-8b cold)"
R4_COLD_TIMEOUT=150 R4_LLAMA_TIMEOUT=120 timeout 340 bash scripts/device/sweeps.sh
echo "sweeps rc=$?"
