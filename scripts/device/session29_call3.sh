# Session 29, call 3 (NOT RUN: for the session after 29, after calls 1 and 2). Why session 28's sweep with
# the scale chunks stopped (docs/PERF.md "Session 28"). Needs a second pack: build with the chunks
# on and carry its r4tune and r4kern beside the default ones:
#   cmake -S . -B build-chunks -G Ninja -DR4_SM90A_SCALE_CHUNKS=ON -DR4_DEBUG_INFO=OFF
#   cmake --build build-chunks -j2 --target r4tune r4kern    # ~15 min here; r4d is not needed
#   mkdir -p .device/chunks && cp build-chunks/tuner/r4tune build-chunks/kernels/r4kern .device/chunks/
#   strip --strip-debug .device/chunks/*    # then carry [".device/chunks"] (this call needs nothing else)
# First one config of each path the chunks touch under r4kern --one, each checked over poison then
# timed, each with its own 60 s limit, in the order of risk (a hang leaves the GPU busy, so the
# first one that times out ends the call): the direct producer at SK 1, 2 (shared body), 4, 8, 16;
# the staged producer (int8, e4m3); a block with fewer groups than stages (o_proj SK 8: 2 groups
# at ST 4). Then, if every one passed, the dflash sweep's compile and verify stages with the
# chunks, its progress and every worker request kept with times (R4TUNE_TRACE_WORKER=1: each
# verify request names its config), so a stop names the config it stopped in.
set -u
source "$(dirname "$0")/env.sh"
C=.device/chunks
n=0
for one in w4a8:8,1,4,2,1,1,4@gate_up@64 w4a8:8,2,4,2,1,1,4@hidden_proj@64 \
           w4a8:8,4,4,2,1,1,4@hidden_proj@33 w4a8:8,8,4,2,0,1,4@down@64 \
           w4a8:4,16,1,1,0,1,4@hidden_proj@16 w4a8:4,2,1,2,0,1,4@gate_up@1 \
           w4a8fp8:8,4,1,1,1,1,4@gate_up@16 w4a8:8,8,1,1,1,1,4@o@7; do
  IFS=@ read -r cfg shape m <<<"$one"
  s=$(date +%s%N)
  timeout 60 $C/r4kern --one "$cfg" --shapes "$shape" --m "$m" > $OUT/one.txt 2>&1
  rc=$?
  printf "%s rc=%d %d ms: " "$one" $rc $(( ($(date +%s%N) - s) / 1000000 ))
  grep -E "^one|r4kern:" $OUT/one.txt | tr '\n' ' '; echo
  if [[ $rc -eq 124 ]]; then echo "STOPPED: $one did not finish in 60 s"; exit 0; fi
  n=$((n + 1))
done
echo "== $n configs ran; the dflash sweep with the chunks, compile and verify (timeout 300 s)"
s=$(date +%s)
R4TUNE_TRACE_WORKER=1 timeout 300 $C/r4tune sweep configs/dflash.toml --db /tmp/chunks.db --plain 2>&1 |
  while IFS= read -r l; do printf "%5d %s\n" $(( EPOCHSECONDS - s )) "$l"; done > $OUT/chunks-sweep.log
echo "sweep rc=${PIPESTATUS[0]} in $(( $(date +%s) - s )) s"
grep -vE "^ *[0-9]+ \\[worker" $OUT/chunks-sweep.log | tail -12
grep -E "^ *[0-9]+ \\[worker <-\\]" $OUT/chunks-sweep.log | tail -3 | cut -c1-300
gzip -f $OUT/chunks-sweep.log
