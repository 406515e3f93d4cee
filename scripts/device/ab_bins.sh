#!/usr/bin/env bash
# A/B of two builds of the family on the H200: each R4_AB_CONFIGS entry
# ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ...") through r4kern --one of the base build
# ($B/r4kern_base, copied there before packing the change) and of the change ($B/r4kern); each
# checks its kernel against the GPU reference with a poisoned output before timing it. Used where
# the change is not a define: session 14's stream-K, whose grid the host chooses. Log $OUT/ab_bins.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
for one in ${R4_AB_CONFIGS:-}; do
  IFS=@ read -r cfg shape m <<<"$one"
  for bin in r4kern_base r4kern; do
    timeout 60 $B/$bin --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep -E "^one |error|FAIL" |
      sed "s/^/$bin: /" | head -3
  done
done | tee "$OUT/ab_bins.log"
