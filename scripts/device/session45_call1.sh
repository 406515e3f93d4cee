#!/usr/bin/env bash
# NOT RUN in session 45: every ask failed or was refused (18 asks, 1,516 s of the 1,800 s
# of device time spent on starts that never came), then loans were paused; NOT RUN in session 46
# either (15 asks, 1,591 s, docs/device-logs/2026-12-07-session46-no-device.md). The next session runs
# it as its first call (carry [".device/bin"], a pack of its own commit; timeout_s 600).
#
# On an H200: the acceptance sweeps at this commit (scripts/device/sweeps.sh: dflash cold,
# llama3-8b cold, emitted tables, report; no warm rerun), whose run 1 refreshes the committed
# fixture (scripts/refresh_fixture.sh) since session 44's launch policy changed how the M <= 8
# races of balanced configs launch; then every gpu-labelled binary; then the experiment below in
# what is left. On an H100, the experiment alone (the sweeps' numbers are H200-only).
#
# The experiment: why a balanced pair under PDL forced still loses ~4 us at M = 16 for the fp8
# kinds (session 44; w4a8 only 0.2). Suspect: a quantiser block takes 93-96 registers x 256
# threads = 24,576 of an SM's 65,536, so beside it only two of the three blocks a balanced grid
# puts on an SM fit (8 warps of 56 / 64 / 80 registers: 14,336 / 16,384 / 20,480 registers a
# block for w4a8 / w4a8fp8 / MXFP4; 22,528 / 16,384 / 4,096 left beside three). Smaller
# quantiser blocks (r4kern --define, checked bit for bit against the quantiser as built before
# they are timed) fit beside three: 128 threads x 93 (12,288) and 256 x 37 (R4_QA_VEC=1: 10,240)
# beside w4a8 and w4a8fp8; 64 x 64 (R4_QA_THREADS=64 R4_QA_VEC=4: 4,096) beside all three.
# Prediction if the registers are the limit: the fp8 M = 16 "under PDL forced" lines drop to or
# below plain with 128 / VEC=1, MXFP4's only with 64 x 64. Against it: gate_up's third block on an SM is
# a short split block, whose late start should cost ~the quantiser's time, not 4 us; if no
# variant moves the line, the limit is elsewhere.
set -u
source "$(dirname "$0")/env.sh"
gpu=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | head -1)
echo "$gpu" | tee "$OUT/runs.log"
experiment() {
  echo "#### quantiser blocks beside a balanced grid under PDL"
  R4_ONE_LINES=6 r4_cases "w4a8fp8:4,255,1,1,1,1,4/gate_up/16 mxfp4:4,255,1,1,1,1,8/gate_up/16
    w4a8:4,255,1,1,1,1,8/gate_up/16 w4a8fp8:4,255,1,1,1,1,4/gate_up/8
    w4a8fp8:4,255,1,1,1,1,4/28672x4096/16 mxfp4:4,255,1,1,1,1,8/gate_up/8" \
    - R4_QA_THREADS=128 R4_QA_VEC=1 "R4_QA_THREADS=64 R4_QA_VEC=4"
}
run_experiment() {  # $1: seconds
  (( $1 > 40 )) && timeout "$1" bash -c "$(declare -f r4_one r4_cases experiment); B=$B; experiment"
}
# R4_CALL=experiment: the experiment alone on either card (for a session with < ~800 s left).
if [[ ${R4_CALL:-full} == full ]] && echo "$gpu" | grep -q H200; then
  R4_SKIP_WARM=1 R4_COLD_TIMEOUT=220 R4_LLAMA_TIMEOUT=120 timeout 380 bash scripts/device/sweeps.sh 2>&1 | tee -a "$OUT/runs.log"
  echo "sweeps rc=${PIPESTATUS[0]} at ${SECONDS} s" | tee -a "$OUT/runs.log"
  timeout $((580 - SECONDS)) bash scripts/device/gpu_tests.sh 2>&1 | tee -a "$OUT/runs.log"
  echo "gpu tests rc=${PIPESTATUS[0]} at ${SECONDS} s" | tee -a "$OUT/runs.log"
  run_experiment $((585 - SECONDS)) 2>&1 | tee -a "$OUT/runs.log"
else
  run_experiment "${R4_EXP_S:-400}" 2>&1 | tee -a "$OUT/runs.log"
fi
echo "wall ${SECONDS} s" | tee -a "$OUT/runs.log"
