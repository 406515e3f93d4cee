#!/usr/bin/env bash
# The sweep's worker process measuring floors on its own (JSON lines over stdin, as the sweep
# drives it: open, shape, floors), against r4kern --floors: the sweep stores a 0.68-0.69 us launch
# floor and small-shape read floors ~0.2 us above r4kern's 0.50 us (docs/PERF.md, session 6).
# Variants: with and without the streaming ceiling at open. About 30 s of device time.
set -uo pipefail
source "$(dirname "$0")/env.sh"
med() { python3 -c '
import json, sys, statistics
for line in sys.stdin:
    r = json.loads(line)
    for key in ("launch", "read"):
        if key in r:
            print(key, round(statistics.median(r[key]["samples"]), 3), r[key].get("detail", "")[:90])
'; }
for open in '"ceiling":true,"fresh_context":false' '"ceiling":true,"fresh_context":true' '"ceiling":false'; do
  for shape in "256 5120" "1280 5120"; do
    set -- $shape
    echo "== worker: open with $open, N=$1 K=$2"
    printf '%s\n' "{\"op\":\"open\",\"device\":0,$open}" "{\"op\":\"shape\",\"n\":$1,\"k\":$2}" \
      '{"op":"floors","launch":true}' '{"op":"floors","launch":true}' | timeout 120 $B/r4tune worker | med
  done
done
