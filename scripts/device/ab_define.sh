#!/usr/bin/env bash
# A/B of kernel defines on the H200 (r4kern --one: checked against the GPU reference, then timed
# over a pool of cold weight copies): each config of R4_AB_CONFIGS
# ("variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M ...") without defines, then with each define set of
# R4_AB_SETS ('|' between sets, '+' between the defines of one set, e.g.
# "R4L_ASYNC=8|R4L_ASYNC=16"; docs/PERF.md sessions 9-10). R4_AB_DEFINES (one set, space
# separated) is the older spelling. Per run: the check line, then GEMM alone, the pair and the
# race-style line (head -4). Log in $OUT/ab.log.
set -uo pipefail
source "$(dirname "$0")/env.sh"
sets=${R4_AB_SETS:-$(echo "${R4_AB_DEFINES:-}" | tr ' ' '+')}
for one in ${R4_AB_CONFIGS:-}; do
  IFS=@ read -r cfg shape m <<<"$one"
  timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 | grep "^one "
  IFS='|' read -ra alts <<<"$sets"
  for set in "${alts[@]}"; do
    defs=()
    IFS='+' read -ra ds <<<"$set"
    for d in "${ds[@]}"; do defs+=(--define "$d"); done
    timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" "${defs[@]}" 2>&1 |
      grep -E "^one |error" | head -4
  done
done | tee "$OUT/ab.log"
