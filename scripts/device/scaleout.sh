#!/usr/bin/env bash
# Issue 15's GPU checks on the one-GPU nvidia-h200, in one device call (about 4 minutes of the
# dflash spec), from the repository root, with the binaries in .device/bin
# (scripts/device/pack.sh) and Debian's Open MPI in .device/mpi (scripts/device/pack_mpi.sh;
# carry both: `carry: [".device/bin", ".device/mpi"]`). Logs and the dispatch logs go to $OUT;
# a verdict table ends the output.
#   1. today's path: `r4tune sweep SPEC` on a cold database (run 1, the reference);
#   2. `--devices all`: run 2 on the warm cache: the same counts, each band's winner the same
#      config or within 2% (re-measure), every row naming its GPU;
#   3. kill -9 of the worker mid-sweep (`--devices all`, run 3): the worker is restarted on its
#      GPU and the sweep completes with run 1's counts, integrity ok;
#   4. `mpirun -n 2` with both ranks on the one GPU (a functional check: they contend for it):
#      one run in one database, ranks = 2, every race stored exactly once, run 1's counts;
#   5. kill -9 of rank 1 mid-sweep (mpirun told not to end the job for it): rank 0 reports the
#      rank with its host and GPU and leaves the run partial; `--resume` without MPI (another
#      rank count) completes it with run 1's counts, integrity ok;
#   6. bad input before any GPU work: `--devices 7` (exit 4), a database folder that does not
#      exist (exit 3), both naming what is wrong.
# SPEC defaults to configs/dflash.toml (R4_SCALEOUT_SPEC overrides it). R4_SCALEOUT_WORKER=PATH
# runs every sweep with that worker (the replay worker: a dry run of this script on a machine
# without a GPU).
set -uo pipefail
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/mpi_env.sh"
S=${R4_SCALEOUT_SPEC:-configs/dflash.toml}
WK=()
[[ -n ${R4_SCALEOUT_WORKER:-} ]] && WK=(--worker "$R4_SCALEOUT_WORKER")
L="$OUT/scaleout.log"
T=$(mktemp -d)  # the databases
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep='|') for r in c.execute(sys.argv[2])]" "$@"; }
counts() { q "$1" "select (select count(*) from checks where run_id=$2), (select count(*) from checks where run_id=$2 and status!='pass'), (select count(*) from measurements where run_id=$2), (select count(*) from winners where run_id=$2), (select count(*) from baselines where run_id=$2), (select count(*) from floors where run_id=$2), (select count(*) from steps where run_id=$2), (select status from runs where id=$2)"; }
V=()  # verdict rows: check, detail, ok, tab-separated
verdict() { V+=("$1"$'\t'"$2"$'\t'"$3"); echo "VERDICT $1: $3 ($2)"; }
# Each band's winner in run $3 against run $2: same config, or the re-measured median within 2%.
winners_within() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = "select kernel,n,k,band_limit,wv,sk,mb,npw,nt,median_us from winners where run_id=?"
a = {r[:4]: r for r in c.execute(q, (sys.argv[2],))}
b = {r[:4]: r for r in c.execute(q, (sys.argv[3],))}
same = sum(1 for k in a if k in b and a[k][4:9] == b[k][4:9])
worst = max((abs(b[k][9] / a[k][9] - 1) * 100 for k in a if k in b and a[k][4:9] != b[k][4:9]), default=0.0)
print(f"{len(a)} vs {len(b)} winners, same config {same}, other configs within {worst:.2f}%")
sys.exit(0 if a.keys() == b.keys() and worst <= 2.0 else 1)
EOF
}
# Whether every race of run $2 is stored once with run $3's number of measurements.
races_once() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
per = lambda run: dict(((n, k, m), x) for n, k, m, x in c.execute(
    "select n,k,m,count(*) from measurements where run_id=? group by 1,2,3", (run,)))
dup = c.execute("select count(*) from (select kind,n,k,m from baselines where run_id=? group by 1,2,3,4 having count(*)>1)", (sys.argv[2],)).fetchone()[0]
ok = per(sys.argv[2]) == per(sys.argv[3]) and dup == 0
print(f"{len(per(sys.argv[2]))} races, measurements per race {'equal to' if ok else 'NOT equal to'} run {sys.argv[3]}'s, baselines stored twice: {dup}")
sys.exit(0 if ok else 1)
EOF
}
pids_of_rank() {  # r4tune processes of MPI rank $1 whose command line names $2
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/exe" 2>/dev/null) == "$PWD/$B/r4tune" ]] || continue
    tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q -- "$2" || continue
    tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "${p#/proc/}"
  done
}

{
  date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "spec $S; mpirun: ${R4_MPIRUN:-none}"

  echo "== 1. today's path, cold database"
  rm -f $T/so.db*
  timeout 480 $B/r4tune sweep "$S" "${WK[@]}" --db $T/so.db --plain 2>&1 | grep -vE "^(compile|measure) "
  rc=${PIPESTATUS[0]}; ref=$(counts $T/so.db 1); echo "run 1: $ref rc=$rc"
  quarter=$(( $(cut -d'|' -f3 <<<"$ref") / 4 ))
  verdict "1 one GPU (reference)" "rc $rc; checks|failed|measurements|winners|baselines|floors|steps|status $ref" "$([[ $rc == 0 ]] && echo ok || echo FAIL)"
  want=${ref%|*}

  echo "== 2. --devices all, warm cache"
  timeout 300 $B/r4tune sweep "$S" "${WK[@]}" --db $T/so.db --plain --devices all \
    --dispatch-log "$OUT/devices-dispatch.log" 2>&1 | grep -vE "^(compile|measure) "
  rc=${PIPESTATUS[0]}; got=$(counts $T/so.db 2)
  w=$(winners_within $T/so.db 1 2); wrc=$?
  nogpu=$(q $T/so.db "select count(*) from measurements where run_id=2 and gpu_id is null")
  ok=$([[ $rc == 0 && ${got%|*} == "$want" && $wrc == 0 && $nogpu == 0 ]] && echo ok || echo FAIL)
  verdict "2 --devices all = today's path" "counts $got; $w; rows without GPU $nogpu" "$ok"

  echo "== 3. kill -9 of the worker mid-sweep (--devices all)"
  cp $T/so.db $T/sw.db
  $B/r4tune sweep "$S" "${WK[@]}" --db $T/sw.db --plain --devices all >"$OUT/kill-worker.log" 2>&1 &
  P=$!; killed=none; last=0
  for i in $(seq 1 600); do
    kill -0 $P 2>/dev/null || break  # finished before a kill could land
    n=$(q $T/sw.db "select count(*) from measurements where run_id=3" 2>/dev/null || echo 0)
    # Just after a race's rows land the worker starts the next race: kill it there, past the
    # race's verification (tens of ms on the H200), in its set-up or sampling.
    if [[ ${n:-0} -ge $quarter && ${n:-0} != "$last" && $last != 0 ]]; then
      sleep 0.25
      W=$(pgrep -P $P | head -1)  # the sweep's only children are its workers
      [[ -n $W ]] && kill -9 "$W" && killed="worker pid $W after $n measurements" && break
    fi
    last=${n:-0}; sleep 0.1
  done
  wait $P; rc=$?
  got=$(counts $T/sw.db 3); integ=$(q $T/sw.db "pragma integrity_check")
  grep -E "failed|restart|dispatch:" "$OUT/kill-worker.log"
  # Killed in a verification instead, the check is a `fault` (signal 9) and that config is not
  # timed there, as on one GPU: one failed check more and one measurement fewer.
  hit=$(q $T/sw.db "select count(*) from checks where run_id=3 and status='fault' and detail like '%signal 9%'")
  IFS='|' read -r c1 f1 m1 w1 b1 fl1 st1 <<<"$want"
  alt="$c1|$((f1 + hit))|$((m1 - hit))|$w1|$b1|$fl1|$st1"
  ok=$([[ $rc == 0 && $integ == ok && $killed != none && ( ${got%|*} == "$want" || ( $hit -gt 0 && ${got%|*} == "$alt" ) ) ]] && echo ok || echo FAIL)
  [[ $hit -gt 0 ]] && killed="$killed (in a verification: $hit fault check)"
  verdict "3 kill -9 worker" "$killed; rc $rc; counts $got; integrity $integ" "$ok"

  if [[ -n $R4_MPIRUN ]]; then
    echo "== 4. mpirun -n 2, both ranks on the one GPU"
    cp $T/so.db $T/sm.db  # runs 1 and 2 there; this is run 3
    timeout 480 "$R4_MPIRUN" --oversubscribe -n 2 $B/r4tune sweep "$S" "${WK[@]}" --db $T/sm.db --plain \
      --dispatch-log "$OUT/mpi-dispatch.log" 2>&1 | grep -vE "^(compile|measure) "
    rc=${PIPESTATUS[0]}; got=$(counts $T/sm.db 3)
    ranks=$(q $T/sm.db "select ranks from runs where id=3")
    o=$(races_once $T/sm.db 3 1); orc=$?
    ok=$([[ $rc == 0 && ${got%|*} == "$want" && $ranks == 2 && $orc == 0 ]] && echo ok || echo FAIL)
    verdict "4 mpirun -n 2 one run" "rc $rc; ranks $ranks; counts $got; $o" "$ok"

    echo "== 5. kill -9 of rank 1 mid-sweep, then --resume without MPI"
    cp $T/so.db $T/sr.db
    # mpirun as it comes: it ends the job when a rank dies; rank 0 sees the rank's process gone
    # (same host) or gets mpirun's SIGTERM, and reports either way.
    "$R4_MPIRUN" --oversubscribe -n 2 $B/r4tune sweep "$S" "${WK[@]}" \
      --db $T/sr.db --plain --rank-timeout-s 60 >"$OUT/kill-rank.log" 2>&1 &
    P=$!; killed=none
    for i in $(seq 1 900); do
      kill -0 $P 2>/dev/null || break
      n=$(q $T/sr.db "select count(*) from measurements where run_id=3" 2>/dev/null || echo 0)
      if [[ ${n:-0} -ge $quarter && ${n:-0} -gt 0 ]]; then
        R=$(pids_of_rank 1 $T/sr.db | head -1)
        [[ -n $R ]] && kill -9 "$R" && killed="rank 1 pid $R after $n measurements" && break
      fi
      sleep 0.1
    done
    timeout 300 tail --pid=$P -f /dev/null; wait $P; rc=$?
    grep -E "rank 1 \(host|left partial|--resume" "$OUT/kill-rank.log" | head -5
    reported=$(grep -c "rank 1 (host" "$OUT/kill-rank.log")
    status=$(q $T/sr.db "select status from runs where id=3")
    timeout 300 $B/r4tune sweep "$S" "${WK[@]}" --db $T/sr.db --plain --resume 2>&1 | grep -E "^(run|resum)|finished"
    rrc=${PIPESTATUS[0]}; got=$(counts $T/sr.db 3); integ=$(q $T/sr.db "pragma integrity_check")
    ok=$([[ $killed != none && $reported -ge 1 && $status != complete && $rrc == 0 && ${got%|*} == "$want" && $integ == ok ]] && echo ok || echo FAIL)
    verdict "5 kill -9 rank, --resume" "$killed; mpirun rc $rc; reported $reported; then $status; resume rc $rrc; counts $got; integrity $integ" "$ok"
  else
    verdict "4 mpirun -n 2 one run" "no Open MPI: carry .device/mpi (scripts/device/pack_mpi.sh)" "SKIPPED"
    verdict "5 kill -9 rank, --resume" "no Open MPI" "SKIPPED"
  fi

  echo "== 6. bad input"
  out=$($B/r4tune sweep "$S" "${WK[@]}" --db $T/sb.db --devices 7 2>&1); rc=$?
  echo "$out" | head -3
  verdict "6a --devices 7" "rc $rc: $(echo "$out" | head -1 | cut -c1-90)" "$([[ $rc == 4 ]] && grep -q "GPU 7 is not on host" <<<"$out" && echo ok || echo FAIL)"
  out=$($B/r4tune sweep "$S" "${WK[@]}" --db /nonexistent/folder/x.db 2>&1); rc=$?
  echo "$out" | head -3
  verdict "6b unwritable --db" "rc $rc: $(echo "$out" | head -1 | cut -c1-90)" "$([[ $rc == 3 ]] && grep -q "does not exist" <<<"$out" && echo ok || echo FAIL)"
} >"$L" 2>&1

gzip -c $T/so.db >"$OUT/scaleout.db.gz" 2>/dev/null
[[ -f $T/sm.db ]] && gzip -c $T/sm.db >"$OUT/scaleout-mpi.db.gz"
grep -E "^VERDICT|rc=|^run " "$L" | head -40
echo
printf '%-32s | %-6s | %s\n' "check" "result" "detail"
for v in "${V[@]}"; do
  IFS=$'\t' read -r c d r <<<"$v"
  printf '%-32s | %-6s | %s\n' "$c" "$r" "$d"
done
