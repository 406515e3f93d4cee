#!/usr/bin/env bash
# The carried build's dflash cold sweep (through the device tool): compiles and verifies every
# config, races them, prints the run's summary and its step table; the log lands in
# $OUT/new-sweep.log and the database, compile binaries stripped, in $OUT/new-run1.db.xz.
# `sweep_verify.sh [TIMEOUT_S]` (default 150).
set -u
source "$(dirname "$0")/env.sh"
timeout "${1:-150}" $B/r4tune sweep configs/dflash.toml --db /tmp/new.db --plain 2>&1 |
  grep -vE "^(compile|measure) " >"$OUT/new-sweep.log"
echo "sweep rc=${PIPESTATUS[0]}"
grep -E "^(run|time)|failed|^step|^dflash +[0-9]+ " "$OUT/new-sweep.log" | head -30
r4_pack_db /tmp/new.db "$OUT/new-run1.db.xz"
