#!/usr/bin/env bash
# The SASS of one config in the two builds that run it on the device: the sweep's NVRTC build
# (r4kern --one --binary) and r4d's nvcc build (linked into r4d_bench), for a config where r4d and
# the tuner disagree (docs/PERF.md "Session 16": w4a8 o_proj M = 48 ldg (2, 1, 1, 1, 0, 4), r4d
# 5% slower under PDL only). Writes both listings, each one's opcode counts, and their diff with
# addresses and encodings stripped, under $OUT.
#   R4_SASS_ONE="w4a8:2,1,1,1,0,2,4@o@48" R4_SASS_FUN=r4d_w4a8_ldg_2_1_1_1_0_4 \
#     bash scripts/device/sass_r4d.sh
set -uo pipefail
source "$(dirname "$0")/env.sh"
IFS=@ read -r cfg shape m <<<"${R4_SASS_ONE:?R4_SASS_ONE=variant:tuple@shape@M}"
fun=${R4_SASS_FUN:?R4_SASS_FUN=the r4d kernel name (kernels/r4d/cmake/R4dKernels.cmake)}
timeout 60 $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" --binary /tmp/nvrtc.cubin 2>&1 |
  grep -E "^one |error"
cuobjdump -sass /tmp/nvrtc.cubin >"$OUT/nvrtc.sass"
# r4d's fatbin holds sm_80 and sm_90 code: keep the sm_90 function.
cuobjdump -sass -fun "$fun" $B/r4d_bench |
  awk '/arch = sm_/ {keep = ($3 == "sm_90")} keep' >"$OUT/r4d.sass"
norm() { grep -E '^\s+/\*[0-9a-f]{4,}\*/' "$1" | sed -E 's@/\*[0-9a-f]+\*/@@; s@;.*@@; s@\s+@ @g'; }
for b in nvrtc r4d; do
  norm "$OUT/$b.sass" >"$OUT/$b.norm"
  echo "== $b: $(wc -l <"$OUT/$b.norm") instructions; top opcodes"
  awk '{op = ($1 ~ /^@/) ? $2 : $1; n[op]++} END {for (o in n) print n[o], o}' "$OUT/$b.norm" |
    sort -rn | head -15
done
diff "$OUT/nvrtc.norm" "$OUT/r4d.norm" >"$OUT/sass.diff"
echo "diff lines: $(wc -l <"$OUT/sass.diff")"
