#!/usr/bin/env bash
# r4kern of several builds raced on one machine (through the device tool): each R4_AB_ONE entry
# "variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M" is run by the r4kern of every folder of R4_AB_BUILDS
# (folders under .device/, carried, in that order; repeat one to alternate, e.g. "old new old new"),
# each run checked over poison before it is timed. Appends to $OUT/ab.log and prints its summary.
set -u
source "$(dirname "$0")/env.sh"
L=$OUT/ab.log
for one in ${R4_AB_ONE:-}; do
  IFS=@ read -r cfg shape m <<<"$one"
  for v in ${R4_AB_BUILDS:-old bin old bin}; do
    echo "-- $v $one" >>"$L"
    timeout 30 ".device/$v/r4kern" --one "$cfg" --shapes "$shape" --m "$m" 2>&1 |
      grep -E "^one|r4kern:" >>"$L"
  done
done
grep -E "^--|us \(|with PDL|as a race|wrong|r4kern:" "$L"
