#!/usr/bin/env bash
# Why session 27's shared SK 2/4/8 bodies (R4_SK=0, the split count read from the grid) ran 0.6%
# slower than the same configs compiled apart (docs/PERF.md "Session 27"): nvcc's sm_90a cubin of
# each R4_SS_CONFIGS entry "file:WV,SK,MB,NPW,NT,GEN,ST" twice, -DR4_SK=0 and -DR4_SK=<SK>, then
# per body: instructions in all, the index of the first global load (LDG, LDGSTS, UBLKCP, UTMALDG)
# and of the PDL wait (ACQBULK), the S2R / special-register reads before the first load, and the
# main loop's length (the longest backward branch's span). The SASS goes to $OUT/sass_sk.tar.gz.
# cuobjdump is on the H200 machine only (this Debian box has none).
set -uo pipefail
source "$(dirname "$0")/env.sh"
d=$(mktemp -d)
for one in ${R4_SS_CONFIGS:-}; do
  IFS=: read -r file tuple <<<"$one"
  IFS=, read -r wv sk mb npw nt gen st <<<"$tuple"
  base="-DR4_WV=$wv -DR4_MB=$mb -DR4_NPW=$npw -DR4_NT=$nt -DR4_GEN=$gen -DR4_ST=$st -DR4_WAVE=32"
  [[ $file == gemm_w4a16_nt ]] && base="$base -DR4_A_BF16=1"
  for s in 0 "$sk"; do
    name="$file-$wv-$sk-$mb-$npw-$nt-$gen-$st-R4_SK$s"
    nvcc -arch=sm_90a -cubin -I . $base -DR4_SK=$s -o "$d/$name.cubin" "kernels/$file.cu" 2>&1 | head -3
    cuobjdump -sass "$d/$name.cubin" > "$d/$name.sass" 2>&1
    grep -E '^\s+/\*[0-9a-f]+\*/' "$d/$name.sass" | awk -v n="$name" '
      function hex(x,   k, v) {  # mawk, the awk of Ubuntu, has no strtonum
        v = 0; x = tolower(x); sub(/^0x/, "", x)
        for (k = 1; k <= length(x); k++) v = v * 16 + index("0123456789abcdef", substr(x, k, 1)) - 1
        return v
      }
      { i++ }
      /ACQBULK/ && !w { w = i }
      /(LDG|LDGSTS|UBLKCP|UTMALDG)/ && !first { first = i }
      /S2R|S2UR|CS2R/ && !first { s2r++ }
      match($0, /\/\*[0-9a-f]+\*\//) { addr[i] = hex(substr($0, RSTART + 2, RLENGTH - 4)) }
      /BRA/ && match($0, /0x[0-9a-f]+/) {
        t = hex(substr($0, RSTART, RLENGTH)); span = (addr[i] - t) / 16
        if (span > loop) loop = span
      }
      END { printf "%s: %d instructions, first load at %d, PDL wait at %d, %d special-register reads before the first load, longest loop %d instructions\n", n, i, first, w, s2r, loop }'
  done
done
tar -czf "$OUT/sass_sk.tar.gz" -C "$d" . 2>/dev/null
rm -rf "$d"
