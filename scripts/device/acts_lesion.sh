#!/usr/bin/env bash
# Session 19: what the ldg main loop's activation loads cost (docs/PERF.md, session 19).
# R4_AL_PAIRS ("WV,SK,MB,NPW,NT,ST@shape@M ..."): w4a8 as ldg (gen 2: activations loaded from
# global memory each batch) and as ldgq with its fused quantiser left out (R4Q_LESION=1: the main
# loop reads a shared tile of garbage; wrong by design, timed only), both by $B/r4kern_ldgq (the
# f8cc6ca build, which has ldgq). R4_AL_AB ("WV,SK,MB,NPW,NT,ST@shape@M@BYTES ..."): w4a8 ldg by
# $B/r4kern without and with --define R4L_ASMEM=BYTES (Aq's slice copied into shared memory once;
# the define exists only in 41d1c69's kernels/nv/gemm_w4_ldg.h: build $B/r4kern from that commit).
# Then ncu (scripts/device/stalls.sh, $B/r4kern) on R4_NCU_CONFIGS. Logs in $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
one() { timeout 60 "$@" 2>&1 | grep -E "^one .*us \(|FAIL|error"; }
for p in ${R4_AL_PAIRS:-}; do
  IFS=@ read -r t shape m <<<"$p"
  IFS=, read -r wv sk mb npw nt st <<<"$t"
  one $B/r4kern_ldgq --one "w4a8:$wv,$sk,$mb,$npw,$nt,2,$st" --shapes "$shape" --m "$m"
  one $B/r4kern_ldgq --one "w4a8:$wv,$sk,$mb,$npw,$nt,3,$st" --shapes "$shape" --m "$m" \
    --define R4Q_LESION=1 --define R4G_LESION=9
done | tee "$OUT/al.log"
for p in ${R4_AL_AB:-}; do
  IFS=@ read -r t shape m bytes <<<"$p"
  IFS=, read -r wv sk mb npw nt st <<<"$t"
  one $B/r4kern --one "w4a8:$wv,$sk,$mb,$npw,$nt,2,$st" --shapes "$shape" --m "$m"
  one $B/r4kern --one "w4a8:$wv,$sk,$mb,$npw,$nt,2,$st" --shapes "$shape" --m "$m" \
    --define "R4L_ASMEM=$bytes"
done | tee "$OUT/asmem.log"
[[ -n ${R4_NCU_CONFIGS:-} ]] && bash "$(dirname "$0")/stalls.sh" 2>&1 | tee "$OUT/ncu.log"
exit 0
