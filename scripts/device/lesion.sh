#!/usr/bin/env bash
# Where an sm90a kernel's time goes, on the H200: each R4_ONE entry "variant:WV,SK,MB,NPW,NT,GEN,ST@
# shape@M" is timed as is and with one stage left out (R4G_LESION=1: no activation staging; 2: no
# dequantisation or MMA), then r4kern times the whole sm90a space on R4_SHAPES (every ring depth).
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/lesion.log"
{
  date -u
  for one in ${R4_ONE:-}; do
    IFS=@ read -r cfg shape m <<<"$one"
    for d in R4G_LESION=0 R4G_LESION=1 R4G_LESION=2; do
      timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" --define "$d" 2>&1 | grep -E "^one|r4kern:"
    done
  done
  if [[ -n ${R4_SHAPES:-} ]]; then
    echo "== r4kern sm90a timing on ${R4_SHAPES}"
    timeout 400 $B/r4kern --time --gen 1 --shapes "$R4_SHAPES" --time-budget "${R4_BUDGET:-120}" --out "$OUT" 2>&1 |
      grep -vE "^(timed|checked) " | tail -30
    echo "r4kern rc=${PIPESTATUS[0]}"
  fi
  if [[ ${R4_PDL:-0} == 1 ]]; then timeout 200 $B/tuner_measure_pdl_gpu_test 2>&1 | grep -E "trigger|wait|FAILED|PASSED"; fi
} >"$L" 2>&1
cat "$L" | tail -60
