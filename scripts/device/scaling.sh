#!/usr/bin/env bash
# One device call on nvidia-h200-x4 (or -x2) for issues 15 and 16, from the repository root,
# with .device/bin (scripts/device/pack.sh) and .device/mpi (scripts/device/pack_mpi.sh) carried.
# In priority order, each part bounded so that the call fits its 600 s:
#   1. the gpu-labelled test binaries, on GPU 0;
#   2. issue 15's functional checks (scripts/device/scaleout.sh) on GPU 0 alone
#      (CUDA_VISIBLE_DEVICES=0: a one-GPU host), over the small configs/test/scaleout.toml;
#   3. issue 16's scaling runs over configs/scale/three-models.toml: the compile cache warmed once
#      (--compile-only), then each run on a copy of that database (so every run is warm and none
#      compiles): --devices 0, --devices all, mpirun -n G (one GPU per rank), --devices 0,1,
#      mpirun -n 2 --devices 0,1. Per run: wall time, speed-up and efficiency against
#      --devices 0, each GPU's idle share from the dispatcher's log, winners against --devices 0.
# R4_SCALING_PARTS (default "tests functional scaling") picks the parts; R4_SCALING_TESTS the
# test binaries of part 1.
# R4_SCALING_WORKER=PATH runs the sweeps with that worker (the replay worker: a dry run on a
# machine without a GPU, with R4_REPLAY_DEVICES=X,X,X,X: one model name per GPU); R4_SCALING_SPEC and
# R4_SCALING_FUNCTIONAL_SPEC replace the two specs (a small one keeps a dry run's compiles short).
set -uo pipefail
source "$(dirname "$0")/env.sh"
source "$(dirname "$0")/mpi_env.sh"
export NCCL_NVLS_ENABLE=0 NCCL_NVLS_DISABLE=1  # nothing here uses NCCL or multicast; kept off
T0=$SECONDS
L="$OUT/scaling.log"
T=$(mktemp -d)
WK=()
[[ -n ${R4_SCALING_WORKER:-} ]] && WK=(--worker "$R4_SCALING_WORKER")
if [[ -n ${R4_REPLAY_DEVICES:-} ]]; then  # the replay worker's GPUs: one model name each
  G=$(tr ',' '\n' <<<"$R4_REPLAY_DEVICES" | wc -l)
else
  G=$(nvidia-smi -L 2>/dev/null | wc -l)
fi
left() { echo $((${R4_SCALING_BUDGET_S:-570} - (SECONDS - T0))); }

{
  date -u
  nvidia-smi --query-gpu=index,name,pci.bus_id,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw \
    --format=csv 2>/dev/null
  echo "GPUs $G; mpirun ${R4_MPIRUN:-none}"

  echo "== 1. gpu tests on GPU 0 ($(left) s left)"
  P=${R4_SCALING_PARTS:-tests functional scaling}
  if [[ -z ${R4_SCALING_WORKER:-} && $P == *tests* ]]; then
    for t in ${R4_SCALING_TESTS:-tuner_gpu_runtime_test kernels_gpu_check_test \
             tuner_measure_pdl_gpu_test r4d_launch_gpu_test r4d_graph_gpu_test}; do
      [[ -x $B/$t ]] || { echo "$t: not carried"; continue; }
      s=$SECONDS
      CUDA_VISIBLE_DEVICES=0 timeout 120 $B/$t --gtest_brief=1 2>&1 | tail -4
      echo "$t: rc ${PIPESTATUS[0]} in $((SECONDS - s)) s"
    done
  fi

  echo "== 2. issue 15 functional checks on GPU 0 alone ($(left) s left)"
  s=$SECONDS
  [[ $P == *functional* ]] && env CUDA_VISIBLE_DEVICES=0 ${R4_REPLAY_DEVICES:+R4_REPLAY_DEVICES=X} R4_SCALEOUT_SPEC=${R4_SCALING_FUNCTIONAL_SPEC:-configs/test/scaleout.toml} \
    R4_SCALEOUT_WORKER=${R4_SCALING_WORKER:-} timeout 240 bash scripts/device/scaleout.sh
  echo "scaleout.sh: rc $? in $((SECONDS - s)) s"

  [[ $P == *scaling* ]] || exit 0
  echo "== 3. scaling runs ($(left) s left)"
  S=${R4_SCALING_SPEC:-configs/scale/three-models.toml}
  s=$SECONDS
  timeout 200 $B/r4tune sweep $S "${WK[@]}" --compile-only --db $T/seed.db --plain 2>&1 | tail -3
  echo "compile-only: rc ${PIPESTATUS[0]} in $((SECONDS - s)) s"
  run() {  # name, then the launcher and sweep arguments
    local name=$1; shift
    if (( $(left) < 40 )); then echo "$name: skipped, $(left) s left"; return; fi
    cp $T/seed.db $T/$name.db
    local a=$(date +%s.%N)
    timeout $(( $(left) - 5 )) "$@" --db $T/$name.db --plain --dispatch-log "$OUT/$name.jsonl" \
      >"$OUT/$name.log" 2>&1
    local rc=$? b=$(date +%s.%N)
    grep -E "^dispatch:|finished|winners|failed" "$OUT/$name.log" | head -12
    echo "RUN $name rc $rc wall $(python3 -c "print(f'{$b - $a:.1f}')") s"
    echo "$name $rc $(python3 -c "print($b - $a)")" >>$T/walls
  }
  SW=($B/r4tune sweep $S "${WK[@]}")
  run one "${SW[@]}" --devices 0
  run all "${SW[@]}" --devices all
  (( G > 2 )) && run two "${SW[@]}" --devices 0,1
  [[ -n $R4_MPIRUN && $G -gt 1 ]] && run mpi$G "$R4_MPIRUN" --oversubscribe -n $G "${SW[@]}" --devices all
  [[ -n $R4_MPIRUN && $G -gt 2 ]] && run mpi2 "$R4_MPIRUN" --oversubscribe -n 2 "${SW[@]}" --devices 0,1

  echo "== scaling table"
  python3 - "$T" "$OUT" <<'PY'
import json, os, sqlite3, sys
T, OUT = sys.argv[1], sys.argv[2]
walls = {}
for line in open(os.path.join(T, "walls")):
    name, rc, w = line.split()
    walls[name] = (int(rc), float(w))
def winners(name):
    c = sqlite3.connect(os.path.join(T, name + ".db"))
    run = c.execute("select max(id) from runs").fetchone()[0]
    q = "select kernel,n,k,band_limit,gen,wv,sk,mb,npw,nt,st,median_us from winners where run_id=?"
    return {r[:4]: r for r in c.execute(q, (run,))}
def idle(name):
    out = []
    for line in open(os.path.join(OUT, name + ".jsonl")):
        e = json.loads(line)
        if e.get("event") == "worker":
            out.append((e["rank"], e["gpu"], e["races"], e["busy_seconds"], e["idle_seconds"], e["wall_seconds"]))
    return out
ref = winners("one") if "one" in walls else {}
if "one" in walls:
    c = sqlite3.connect(os.path.join(T, "one.db"))
    print("r4tune", *c.execute("select git_commit, spec_name from runs order by id desc limit 1").fetchone())
base = walls.get("one", (1, 0))[1]
print("| run | rc | wall s | speed-up | efficiency | GPUs: races, idle share | winners vs --devices 0 |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for name, (rc, w) in walls.items():
    ws = idle(name)
    n = len(ws)
    sp = base / w if w else 0
    idl = ", ".join(f"r{r}g{g}: {races}, {100 * i / wl:.0f}%" for r, g, races, b, i, wl in ws if wl)
    mine = winners(name)
    same = sum(1 for k in ref if k in mine and ref[k][4:11] == mine[k][4:11])
    worst = max((abs(mine[k][11] / ref[k][11] - 1) * 100 for k in ref if k in mine), default=0)
    print(f"| {name} | {rc} | {w:.1f} | {sp:.2f}x | {100 * sp / max(n, 1):.0f}% | {idl} | "
          f"{len(mine)}/{len(ref)} bands, same config {same}, medians within {worst:.2f}% |")
PY
  echo "done in $((SECONDS - T0)) s"
} >"$L" 2>&1
# Two files back (the device tool returns at most 8): this log, and every other log in a tarball.
(cd "$OUT" && ls | grep -vx -e scaling.log -e logs.tar.gz | tar -czf logs.tar.gz --remove-files -T -)
grep -E "^(==|RUN|\||scaleout|compile-only|done|VERDICT|[a-z0-9_]+_test:)" "$L" | head -80
