#!/usr/bin/env bash
# Session 36, call 4: where the sm90a consumers of a small-M config wait, per SASS instruction
# (call 3's lesion: without the consumers' math MXFP4 gate_up M = 1 ran 24.3 -> 16.9 us and w4a8
# (4, 1, 1, 1, 1, 4) M = 16 20.6 -> 17.5, so the consumers, not the stream, set the time). ncu's
# SourceCounters (PC sampling) of one launch each; the source page as CSV (SASS, per-instruction
# stall samples) comes back gzipped, with the WarpStateStats section as text.
set -u
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name --format=csv,noheader
i=0
for one in mxfp4:4,1,1,1,1,1,4@gate_up@1 w4a8:4,1,1,1,1,1,4@gate_up@16; do
  i=$((i + 1))
  IFS=@ read -r cfg shape m <<<"$one"
  echo "== $cfg $shape M=$m"
  timeout 200 ncu --clock-control none --kernel-name regex:gemm --launch-skip 10 --launch-count 1 \
    --set none --section SourceCounters --section WarpStateStats --section LaunchStats \
    --import-source no -f -o /tmp/rep$i $B/r4kern --one "$cfg" --shapes "$shape" --m "$m" 2>&1 |
    grep -E "^one .*us \(|==PROF==|rror" | head -5
  ncu -i /tmp/rep$i.ncu-rep --print-details all 2>&1 | grep -vE "^\s*$" | head -80
  ncu -i /tmp/rep$i.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip -c >"$OUT/source$i.csv.gz"
  ls -la "$OUT/source$i.csv.gz"
done
