#!/usr/bin/env bash
# Where griddepcontrol.wait (SASS ACQBULK) lands among a kernel's first loads, per config, from
# nvcc's sm_90a cubin (cuobjdump -sass on the H200; this machine has no cuobjdump). R4_SW_CONFIGS:
# "file:WV,SK,MB,NPW,NT,GEN,ST[:extra -D flags joined by +]" ...; R4_SW_DEFINES: alternative
# define sets to compare, '|' between sets, '+' inside one (default: one empty set). One line
# each: the wait's instruction index and how many global loads (LDG, LDGSTS, UBLKCP, UTMALDG)
# precede it, and those loads by opcode (weights and scales: .CONSTANT; activations with
# R4L_DEP_LD: plain LDG, which must not appear before the wait). Sessions 22 and 23
# (docs/PERF.md) ran it with R4L_WAIT_FENCE define sets.
set -uo pipefail
source "$(dirname "$0")/env.sh"
for one in ${R4_SW_CONFIGS:-}; do
  IFS=: read -r file tuple extra <<<"$one"
  IFS=, read -r wv sk mb npw nt gen st <<<"$tuple"
  d="-DR4_WV=$wv -DR4_SK=$sk -DR4_MB=$mb -DR4_NPW=$npw -DR4_NT=$nt -DR4_GEN=$gen -DR4_ST=$st ${extra//+/ }"
  IFS='|' read -ra sets <<<"${R4_SW_DEFINES:-}"
  [[ ${#sets[@]} -eq 0 ]] && sets=("")
  for set in "${sets[@]}"; do
    nvcc -arch=sm_90a -cubin -I . $d ${set//+/ } -o /tmp/sw.cubin "kernels/$file.cu" 2>&1 | head -3
    cuobjdump -sass /tmp/sw.cubin | grep -E '^\s+/\*[0-9a-f]{4}\*/' | awk -v n="$file ($tuple) $extra $set" '
      /ACQBULK/ && !w { w = NR; before = loads }
      match($0, /(LDG|LDGSTS|UBLKCP|UTMALDG)[A-Z0-9._]*/) {
        loads++; op = substr($0, RSTART, RLENGTH); if (!w) pre[op]++
      }
      END {
        printf "%s: wait at instruction %d, %d global loads before it, %d in all\n", n, w, before, loads
        for (op in pre) printf "    before the wait: %d x %s\n", pre[op], op
      }'
  done
done
