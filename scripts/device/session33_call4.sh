# Session 33, call 4 (branch bulka; pack: R4_PACK_BUILD=build scripts/device/pack.sh, src.tar and
# the fixture database dropped; .device/old: r4kern of 009dc4d, .device/prev: r4kern of f22d149;
# carry [".device/bin", ".device/old", ".device/prev"]): one bulk copy per stage wherever the M tile
# holds every row (the consumers' chunk stride 16 M), against call 3's eight tiny copies at M <= 8.
#   1. r4kern --one old / prev / new, twice, on three small-M configs;
#   2. the new build's dflash cold sweep (verifies every config; the step table).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
L=$OUT/ab.log
for one in "w4a8:4,2,1,2,0,1,4@gate_up@1" "w4a8:4,2,1,2,0,1,4@gate_up@8" "w4a8fp8:8,4,1,1,1,1,4@gate_up@16"; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in old prev bin old prev bin; do
    echo "-- $v $one" >>$L
    timeout 20 .device/$v/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one|r4kern:" >>$L
  done
done
grep -E "^--|us \(|with PDL|wrong|r4kern:" $L
echo "== dflash cold sweep, new build"
timeout 100 $B/r4tune sweep configs/dflash.toml --db /tmp/new.db --plain 2>&1 |
  grep -vE "^(compile|measure) " > $OUT/new-sweep.log
echo "sweep rc=${PIPESTATUS[0]}"; grep -E "^(run|time)|failed|^step|^dflash +[0-9]+ " $OUT/new-sweep.log | head -30
