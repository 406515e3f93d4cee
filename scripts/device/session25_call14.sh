# Session 25, call 14 (the device time left: ~170 s): r4d with the tables refreshed from call 13
# (14 stream-K rows): its Python module built here, and the torch test, which checks every r4d
# launch of the six drafter shapes at M = 1..64 against a torch reference (the stream-K rows of
# gate_up and down included). No r4d_bench (no time).
set -u
B=.device/bin
mkdir -p $B && tar -cf $B/src.tar --exclude=./.device .
s=$(date +%s)
R4D_GTESTS_DONE=1 R4D_SKIP_EXAMPLE=1 R4D_SKIP_OPS=1 R4D_SKIP_BENCH=1 timeout 140 bash scripts/device/r4d.sh > $OUT/r4d-stdout.txt 2>&1
echo "r4d.sh rc=$? in $(( $(date +%s) - s )) s"
cat $OUT/r4d-stdout.txt | tail -12
grep -E "eager|capture|rc=" $OUT/r4d.log | cut -c1-400
