#!/usr/bin/env bash
# A/B of one kernel define on the H200 (r4kern --one: checked against the GPU reference, then
# timed over a pool of cold weight copies): each config of R4_AB_CONFIGS
# ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ...") without and with every --define of R4_AB_DEFINES
# (e.g. "R4L_WIDE=1"; docs/PERF.md session 9). Log in $OUT/ab.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
defs=()
for d in ${R4_AB_DEFINES:-}; do defs+=(--define "$d"); done
for one in ${R4_AB_CONFIGS:-}; do
  IFS=@ read -r cfg shape m <<<"$one"
  timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep "^one "
  timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" "${defs[@]}" 2>&1 | grep "^one "
done | tee "$OUT/ab.log"
