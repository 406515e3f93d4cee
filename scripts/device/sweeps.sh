#!/usr/bin/env bash
# The sweeps of an acceptance run on the H200, in one device call: dflash from a cold database,
# again on the warm compile cache (an independent second run: cold / warm and the winners of the
# two compared), then llama3-8b cold. Databases, tables and report land in $OUT (run 1 of dflash
# alone is the committed fixture). R4_SKIP_LLAMA=1 leaves llama out, R4_SKIP_WARM=1 the warm run;
# R4_COLD_TIMEOUT (s, default 420) bounds the cold run, whose full output (progress lines, each
# with the time since the start) lands in $OUT/dflash-cold-full.log.gz: where a run stops, that
# says at which config (session 28's first sweep stopped silently after its plan line). A cold run
# that does not finish skips the warm and llama runs; R4_LLAMA_TIMEOUT (s, default 420) bounds llama.
set -uo pipefail
source "$(dirname "$0")/env.sh"
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep=' | ') for r in c.execute(sys.argv[2])]" "$@"; }
L="$OUT/sweeps.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  echo "== dflash, cold database"
  timeout ${R4_COLD_TIMEOUT:-420} /usr/bin/time -f "dflash cold wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 |
    python3 -uc 'import sys,time; t=time.time(); [print(f"{time.time()-t:7.1f} {l}", end="", flush=True) for l in sys.stdin]' |
    tee >(gzip -c >"$OUT/dflash-cold-full.log.gz") | grep -vE "^ *[0-9.]+ (compile|measure) " | cut -c9-
  cold_rc=${PIPESTATUS[0]}
  echo "dflash cold rc=$cold_rc"
  if [[ $cold_rc != 0 ]]; then
    R4_SKIP_WARM=1 R4_SKIP_LLAMA=1
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
    zcat "$OUT/dflash-cold-full.log.gz" | tail -5
  fi
  cp /tmp/d.db /tmp/d_run1.db
  if [[ ${R4_SKIP_WARM:-0} != 1 ]]; then
  echo "== dflash, warm compile cache"
  timeout 300 /usr/bin/time -f "dflash warm wall %e s" $B/r4tune sweep configs/dflash.toml --db /tmp/d.db --plain 2>&1 | grep -E "^(plan|run|time|stream|launch)|wall"
  fi
  echo "== winners, run 1 against run 2"
  q /tmp/d.db "select 'max |diff| %', max(abs(100*(b.median_us-a.median_us)/a.median_us)), 'same config', sum(a.wv=b.wv and a.sk=b.sk and a.mb=b.mb and a.npw=b.npw and a.nt=b.nt and a.gen=b.gen and a.st=b.st), count(*) from winners a join winners b on a.kernel=b.kernel and a.n=b.n and a.k=b.k and a.band_limit=b.band_limit where a.run_id=1 and b.run_id=2"
  q /tmp/d.db "select gen, count(*) from winners where run_id=1 group by gen"
  echo "== run 1 per kernel: winners (generations), checks and failed checks, worst check error / tolerance"
  q /tmp/d.db "select kernel, count(*), group_concat(distinct gen) from winners where run_id=1 group by kernel"
  q /tmp/d.db "select c.kernel, count(*), sum(k.status != 'pass'), max(k.max_error / k.tolerance) from checks k join compiles c on c.id = k.compile_id where k.run_id=1 group by c.kernel"
  if [[ ${R4_SKIP_LLAMA:-0} != 1 ]]; then
    echo "== llama3-8b, cold database"
    timeout ${R4_LLAMA_TIMEOUT:-420} /usr/bin/time -f "llama cold wall %e s" $B/r4tune sweep configs/llama3-8b.toml --db /tmp/l.db --plain 2>&1 | grep -vE "^(compile|measure) "
  fi
  mkdir -p /tmp/emit
  $B/r4tune emit --run 1 --db /tmp/d_run1.db --format python --out /tmp/emit/h200_tables.py
  $B/r4tune emit --run 1 --db /tmp/d_run1.db --format cpp --out /tmp/emit/h200_tables.hpp
  $B/r4tune emit --run 1 --db /tmp/d_run1.db --format json --out /tmp/emit/h200_tables.json
  $B/r4tune report --run 1 --db /tmp/d_run1.db --html /tmp/emit/report.html --csv /tmp/emit/report.csv
} >"$L" 2>&1
# At most 8 files come back from $OUT: the log, two databases and one archive of the emitted files.
tar -czf "$OUT/emitted.tar.gz" -C /tmp/emit .
# Compile binaries stripped (env.sh r4_pack_db; docs/DB.md, the fixture's recipe): with them run 1
# is ~17 MB gzipped, over the 16 MB a returned file may have.
r4_pack_db /tmp/d_run1.db "$OUT/dflash-run1.db.xz"
[[ -f /tmp/l.db ]] && r4_pack_db /tmp/l.db "$OUT/llama.db.xz"
grep -E "wall|^time|^run |max \|diff|^(0|1) \||launch floor|^step|^dflash|^llama|^[a-z_]+ +[0-9]+ +[0-9.]" "$L" | head -90
