# Sourced by the scripts in scripts/device/ (they run on the H200 through the device tool, from
# the repository root): where the carried binaries are (scripts/device/pack.sh), where outputs
# go, and the CUDA toolkit on the paths.
B=${B:-.device/bin}
OUT=${OUT:-/tmp/r4out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
# A sweep database made small enough to come back ($OUT's files have a size limit; session 6 lost
# its first copy so): the compile binaries blanked, vacuumed, xz'd. `r4_pack_db DB OUT.xz`.
r4_pack_db() {
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE compiles SET binary = x''\"); c.commit(); c.execute('PRAGMA journal_mode=DELETE'); c.execute('VACUUM')" "$1" &&
    xz -9 -c "$1" >"$2"
}
# One `r4kern --one` run for the session scripts: "## VARIANT:TUPLE SHAPE M=M DEFINES", then the
# check line and the times (the first four result lines). `r4_one VARIANT:TUPLE SHAPE M [DEFINE...]`;
# R4_ONE_BIN names another r4kern build under $B; R4_ONE_LINES=6 keeps every result line (a
# balanced a8 config prints two more: its pairs under PDL forced, session 44).
r4_one() {
  local cfg=$1 shape=$2 m=$3
  shift 3
  local defs=()
  for d in "$@"; do defs+=(--define "$d"); done
  echo "## $cfg $shape M=$m ${*:-base}"
  timeout 90 "$B/${R4_ONE_BIN:-r4kern}" --one "$cfg" --shapes "$shape" --m "$m" "${defs[@]}" 2>&1 |
    grep -E "^one |rror" | head -"${R4_ONE_LINES:-4}"
}
# r4_one for every case under every define set, the loop the session scripts repeat:
# `r4_cases "VARIANT:TUPLE/SHAPE/M ..." SET...`, a SET being "-" (as built) or defines separated
# by spaces ("R4_QA_THREADS=64 R4_QA_VEC=4").
r4_cases() {
  local cases=$1 c t shape m d
  shift
  for c in $cases; do
    IFS=/ read -r t shape m <<<"$c"
    for d in "$@"; do
      if [[ $d == - ]]; then r4_one "$t" "$shape" "$m"; else r4_one "$t" "$shape" "$m" $d; fi
    done
  done
}
# The SASS of one sm90a config of a kernel file, for reading on this machine: `r4_sass NAME FILE
# WV,SK,MB,NPW,NT,GEN,ST [-DEXTRA...]` writes /tmp/sass/NAME.sass and /tmp/sass/NAME.opcodes (the
# opcode counts, most frequent first), with the scale chunks on as the build has them.
r4_sass() {
  local name=$1 file=$2 tuple=$3 wv sk mb npw nt gen st
  shift 3
  IFS=, read -r wv sk mb npw nt gen st <<<"$tuple"
  mkdir -p /tmp/sass
  nvcc -arch=sm_90a -cubin -I . -DR4_NV -DR4_WV=$wv -DR4_SK=$sk -DR4_MB=$mb -DR4_NPW=$npw \
    -DR4_NT=$nt -DR4_GEN=$gen -DR4_ST=$st -DR4G_SCHUNK_ON=1 "$@" -o "/tmp/sass/$name.cubin" \
    "kernels/$file.cu" 2>&1 | head -3
  cuobjdump -sass "/tmp/sass/$name.cubin" >"/tmp/sass/$name.sass"
  rm -f "/tmp/sass/$name.cubin"
  grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z0-9_.]+" "/tmp/sass/$name.sass" | awk '{print $2}' |
    sed 's/\..*//' | sort | uniq -c | sort -rn >"/tmp/sass/$name.opcodes"
}
