"""Per shape and M of one sweep run: each kernel's best raced time (a w4a8 / fp8-activation time
includes its activation quantiser, as the race times it), the best 4-bit time as x the shape's
read floor, and bf16 / block-fp8 from the same run. Usage: per_shape_table.py DB [RUN]."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
run = int(sys.argv[2]) if len(sys.argv) > 2 else db.execute("select max(id) from runs").fetchone()[0]
kernels = [r[0] for r in db.execute(
    "select distinct kernel from measurements where run_id=? order by kernel", (run,))]
short = {k: k.replace("gemm_", "").replace("_nt", "") for k in kernels}
floors = {(n, k): us for n, k, us in db.execute(
    "select n, k, median_us from floors where run_id=? and kind='read'", (run,))}
base = {(kind, n, k, m): us for kind, n, k, m, us in db.execute(
    "select kind, n, k, m, median_us from baselines where run_id=? and kind!='streaming_ceiling'",
    (run,))}
best = {}
for kern, n, k, m, us in db.execute(
        "select kernel, n, k, m, min(median_us) from measurements where run_id=? and status='ok' "
        "group by kernel, n, k, m", (run,)):
    best[(kern, n, k, m)] = us
shapes = sorted(floors, key=lambda s: s[0] * s[1])
print("| N x K (read floor us) | M | " + " | ".join(short[k] for k in kernels) +
      " | best 4-bit (x floor) | bf16 | block-fp8 |")
print("|---" * (len(kernels) + 5) + "|")
for n, k in shapes:
    for m in sorted({key[3] for key in best if key[1:3] == (n, k)}):
        row = [best.get((kern, n, k, m)) for kern in kernels]
        got = [(us, short[kern]) for us, kern in zip(row, kernels) if us]
        b, who = min(got)
        cells = " | ".join(f"{us:.2f}" if us else "-" for us in row)
        print(f"| {n}x{k} ({floors[(n, k)]:.2f}) | {m} | {cells} | {b:.2f} {who} "
              f"({b / floors[(n, k)]:.2f}x) | {base.get(('bf16', n, k, m), 0):.2f} | "
              f"{base.get(('fp8_block', n, k, m), 0):.2f} |")
