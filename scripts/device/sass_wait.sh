#!/usr/bin/env bash
# Where griddepcontrol.wait (SASS ACQBULK) lands among a kernel's first loads, per config and
# R4L_WAIT_FENCE value (kernels/nv/gemm_w4_ldg.h), from nvcc's sm_90a cubin (cuobjdump -sass on
# the H200; this machine has no cuobjdump). R4_SW_CONFIGS: "file:WV,SK,MB,NPW,NT,GEN,ST[:extra
# -D flags joined by +]" ...; R4_SW_FENCES: the values to try (default "0 1"). One line each:
# the wait's instruction index and how many global loads (LDG, LDGSTS, bulk copies) precede it.
set -uo pipefail
source "$(dirname "$0")/env.sh"
for one in ${R4_SW_CONFIGS:-}; do
  IFS=: read -r file tuple extra <<<"$one"
  IFS=, read -r wv sk mb npw nt gen st <<<"$tuple"
  d="-DR4_WV=$wv -DR4_SK=$sk -DR4_MB=$mb -DR4_NPW=$npw -DR4_NT=$nt -DR4_GEN=$gen -DR4_ST=$st ${extra//+/ }"
  for f in ${R4_SW_FENCES:-0 1}; do
    nvcc -arch=sm_90a -cubin -I . $d -DR4L_WAIT_FENCE=$f -o /tmp/sw.cubin "kernels/$file.cu" 2>&1 | head -3
    cuobjdump -sass /tmp/sw.cubin | grep -E '^\s+/\*[0-9a-f]{4}\*/' | awk -v n="$file ($tuple) $extra FENCE=$f" '
      /ACQBULK/ && !w { w = NR; before = loads }
      /LDG|LDGSTS|UBLKCP|UTMALDG/ { loads++ }
      END { printf "%s: wait at instruction %d, %d global loads before it, %d in all\n", n, w, before, loads }'
  done
done
