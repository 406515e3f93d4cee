#!/usr/bin/env bash
# Where an sm90a kernel's time goes, on the H200: each R4_ONE entry
# "variant:WV,SK,MB,NPW,NT,GEN,ST@shape@M[@DEF=V+DEF=V]" is timed with its extra defines, as is and
# with the consumers' math left out (R4G_LESION=2; R4_LESIONS overrides the list), then optionally
# r4kern times the sm90a space on R4_SHAPES, the PDL tests (R4_PDL=1) and r4d's PDL chain (R4_R4D=1).
set -uo pipefail
source "$(dirname "$0")/env.sh"
L="$OUT/lesion.log"
{
  date -u
  for one in ${R4_ONE:-}; do
    IFS=@ read -r cfg shape m defs <<<"$one"
    extra=()
    for d in ${defs//+/ }; do extra+=(--define "$d"); done
    for l in ${R4_LESIONS:-0 2}; do
      timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" "${extra[@]}" --define R4G_LESION=$l 2>&1 |
        grep -E "^one|r4kern:"
    done
  done
  if [[ -n ${R4_SHAPES:-} ]]; then
    echo "== r4kern sm90a timing on ${R4_SHAPES}"
    timeout 400 $B/r4kern --time --gen 1 --shapes "$R4_SHAPES" --time-budget "${R4_BUDGET:-120}" --out "$OUT" 2>&1 |
      grep -vE "^(timed|checked) " | tail -30
    echo "r4kern rc=${PIPESTATUS[0]}"
  fi
  if [[ ${R4_PDL:-0} == 1 ]]; then timeout 200 $B/tuner_measure_pdl_gpu_test 2>&1 | grep -E "trigger|wait|FAILED|PASSED"; fi
  if [[ ${R4_R4D:-0} == 1 ]]; then
    timeout 300 $B/r4d_graph_gpu_test --gtest_filter='R4dPdl*:R4dGraph*' 2>&1 | tail -25; echo "r4d graph rc=${PIPESTATUS[0]}"
    timeout 200 $B/r4d_bench chain 15 2>&1 | tail -20; echo "r4d chain rc=${PIPESTATUS[0]}"
  fi
} >"$L" 2>&1
cat "$L" | tail -70
