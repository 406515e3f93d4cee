#!/usr/bin/env bash
# Session 39, call 1: the PDL wait fence for the 16-bit ldg kinds (branch exp/w4a16-fence, whose
# R4L_WAIT_FENCE default includes ACT_KIND 0 / 1). Carry [".device/bin", ".device/base"]: bin is
# the branch's build, base main's (6ff1d4f) r4tune and r4kern.
#  1. where the wait lands (sass_wait.sh) in the step's w4a16 winners, fence 0 / 1;
#  2. the GEMM alone and as a race (base r4kern, as is and --define R4L_WAIT_FENCE=1): its cost;
#  3. dflash sweeps, base cold, fence cold, fence warm, base warm (two databases): the step chain
#     under PDL (w4_pdl) and each band's winners, base against fence.
set -u
source "$(dirname "$0")/env.sh"
q() { python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(*r, sep=' | ') for r in c.execute(sys.argv[2])]" "$@"; }
L="$OUT/runs.log"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  echo "== 1. the wait's place"
  R4_SW_CONFIGS="gemm_w4a16_nt:2,8,1,1,1,2,2:-DR4_A_BF16=1 gemm_w4a16_nt:2,4,1,1,0,2,2:-DR4_A_BF16=1 gemm_w4a16_nt:2,16,1,1,1,2,4:-DR4_A_BF16=1 gemm_w4a16_nt:4,2,1,1,0,2,2:-DR4_A_BF16=1" \
    R4_SW_DEFINES="-DR4L_WAIT_FENCE=0|-DR4L_WAIT_FENCE=1" timeout 200 bash scripts/device/sass_wait.sh
  echo "== 2. the fence's cost alone and as a race (base r4kern)"
  for c in "2,8,1,1,1,2,2 qkv_proj 8" "2,4,1,1,0,2,2 o_proj 8" "2,8,1,1,0,2,2 kernel_projection 8" \
           "2,16,1,1,1,2,4 hidden_projection 8" "4,2,1,1,0,2,2 gate_up_proj 1"; do
    set -- $c
    for d in "" R4L_WAIT_FENCE=1; do B=.device/base r4_one "w4a16_bf16:$1" "$2" "$3" $d; done
  done
  echo "== 3. dflash sweeps: base cold, fence cold, fence warm, base warm"
  for r in base:/tmp/b.db:.device/base bin:/tmp/f.db:.device/bin bin:/tmp/f.db:.device/bin base:/tmp/b.db:.device/base; do
    IFS=: read -r name db dir <<<"$r"
    echo "-- $name $db"
    timeout 150 /usr/bin/time -f "$name wall %e s" $dir/r4tune sweep configs/dflash.toml --db $db --plain 2>&1 |
      grep -E "wall|^run |failed|FAIL" | head -8
  done
  for db in /tmp/b.db /tmp/f.db; do
    echo "-- $db steps (run, M, path, us)"
    q $db "select run_id, m, path, round(median_us,2), status from steps where path in ('w4','w4_pdl','read_floor_pdl') order by m, path, run_id"
    echo "-- $db checks failed per run"
    q $db "select run_id, count(*), sum(status!='pass') from checks group by run_id"
  done
  echo "-- w4a16 winners, base run 1/2 against fence run 1/2 (N, K, band, gen, config, us)"
  for db in /tmp/b.db /tmp/f.db; do
    q $db "select '$db', run_id, n, k, band_limit, gen, wv||','||sk||','||mb||','||npw||','||nt||','||st, round(median_us,2) from winners where kernel='gemm_w4a16_nt' order by n, k, band_limit, run_id"
  done
} >"$L" 2>&1
r4_pack_db /tmp/b.db "$OUT/base.db.xz"
r4_pack_db /tmp/f.db "$OUT/fence.db.xz"
cat "$L" | grep -vE "^/tmp/(b|f).db \| " | head -150
