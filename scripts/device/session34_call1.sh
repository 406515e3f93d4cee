#!/usr/bin/env bash
# Session 34, call 1 (branch bulka at b9033ee; pack: R4_PACK_BUILD=build scripts/device/pack.sh,
# src.tar and the fixture database dropped; .device/old: r4tune + r4kern of 009dc4d, .device/prev:
# r4kern of f22d149; carry [".device/bin", ".device/old", ".device/prev"]).
#   1. Co-residency under PDL: the new build's r4kern --one plain and with every sm90a launch's
#      shared memory padded to 116,736 bytes (R4_SM90A_MIN_SHARED: two such CTAs exceed an SM's
#      228 KiB, so one CTA per SM), alternated, on the configs that lost under PDL in call 3;
#   2. one bulk copy per stage at M <= 8 (6979f89): old / prev / new, twice, on three small-M configs;
#   3. the new build's dflash cold sweep, plain and padded (verifies every config; the step table).
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
L=$OUT/solo.log
for one in w4a8:4,1,2,2,1,1,8@o@64 w4a8fp8:8,1,2,1,1,1,8@o@64 w4a8:8,1,4,2,1,1,4@gate_up@64 \
           w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,1,2,2,1,1,8@o@16; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in plain solo plain solo; do
    echo "-- $v $one" >>"$L"
    if [[ $v == solo ]]; then export R4_SM90A_MIN_SHARED=116736; else unset R4_SM90A_MIN_SHARED; fi
    timeout 30 .device/bin/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 |
      grep -E "^one|r4kern:" >>"$L"
  done
done
unset R4_SM90A_MIN_SHARED
grep -E "^--|us \(|with PDL|as a race|wrong|r4kern:" "$L"
echo "== ab: one bulk copy at M <= 8"
R4_AB_ONE="w4a8:4,2,1,2,0,1,4@gate_up@1 w4a8:4,2,1,2,0,1,4@gate_up@8 w4a8fp8:8,4,1,1,1,1,4@gate_up@16" \
R4_AB_BUILDS="old prev bin old prev bin" bash scripts/device/ab_builds.sh | tail -40
echo "== dflash cold sweep, new build, plain"
bash scripts/device/sweep_verify.sh 110
echo "== dflash cold sweep, new build, padded"
R4_SM90A_MIN_SHARED=116736 timeout 110 $B/r4tune sweep configs/dflash.toml --db /tmp/solo.db --plain 2>&1 |
  grep -vE "^(compile|measure) " >"$OUT/solo-sweep.log"
echo "sweep rc=${PIPESTATUS[0]}"
grep -E "^(run|time)|failed|^step|^dflash +[0-9]+ " "$OUT/solo-sweep.log" | head -30
r4_pack_db /tmp/solo.db "$OUT/solo-run1.db.xz"
