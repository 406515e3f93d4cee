#!/usr/bin/env python3
"""Where an sm90a config's time goes, from a sweep database (no GPU): for every SK 1 config of the
sm90a generation, the race times over the spec's shapes against stages per block (= the shape's
128-K groups G), fitted to t = a + b * G by least squares, where every shape's grid fits in one
wave (blocks <= SMs, one block per SM assumed). `a` is the part that does not scale with K (the
quantiser pair for the 8-bit kinds included, since the races time quant + GEMM), `b` the cost of a
stage. Prints one line per config (with --all) and, per kind and MB, the median a and b over the
configs whose fit leaves every point within --max-resid us; docs/PERF.md "Session 29" quotes it.

usage: scripts/sm90a_fit.py DB [--run N] [--sms 132] [--max-resid 1.0] [--all]
"""
import argparse
import collections
import math
import sqlite3
import statistics
import sys


def fit(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    return a, b, max(abs(y - (a + b * x)) for x, y in zip(xs, ys))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("--run", type=int, default=1)
    ap.add_argument("--sms", type=int, default=132)
    ap.add_argument("--max-resid", type=float, default=1.0)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    try:
        db = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
        rows = db.execute(
            "SELECT dtype, n, k, m, wv, mb, npw, nt, st, median_us FROM measurements "
            "WHERE run_id = ? AND gen = 'sm90a' AND sk = 1 AND median_us IS NOT NULL",
            (args.run,)).fetchall()
    except sqlite3.Error as e:
        sys.exit(f"sm90a_fit: cannot read {args.db}: {e}")
    if not rows:
        sys.exit(f"sm90a_fit: run {args.run} of {args.db} has no SK 1 sm90a measurements")
    by = collections.defaultdict(list)
    for dtype, n, k, m, wv, mb, npw, nt, st, us in rows:
        blocks = math.ceil(n / (64 * (wv // 4) * npw)) * math.ceil(m / (16 * mb))
        if blocks <= args.sms:
            by[(dtype, wv, mb, npw, nt, st, m)].append((k // 128, us))
    fits = []
    for key, pts in sorted(by.items()):
        if len({g for g, _ in pts}) < 3:
            continue
        a, b, r = fit(pts)
        fits.append((key, a, b, r))
        if args.all:
            print("{} WV {} MB {} NPW {} NT {} ST {} M {}: a {:.2f} us, b {:.3f} us/stage, "
                  "max resid {:.2f}, {} points".format(*key, a, b, r, len(pts)))
    summary = collections.defaultdict(list)
    for (dtype, wv, mb, npw, nt, st, m), a, b, r in fits:
        if r <= args.max_resid:
            summary[(dtype, mb)].append((a, b))
    print(f"| kind | MB | configs x M fitted | a: median (range) us | b: median (range) us per stage |")
    print("|---|---|---|---|---|")
    for (dtype, mb), ab in sorted(summary.items()):
        a_s = [x for x, _ in ab]
        b_s = [y for _, y in ab]
        print(f"| {dtype} | {mb} | {len(ab)} | {statistics.median(a_s):.2f} ({min(a_s):.2f}-"
              f"{max(a_s):.2f}) | {statistics.median(b_s):.3f} ({min(b_s):.3f}-{max(b_s):.3f}) |")
    left = len(fits) - sum(len(v) for v in summary.values())
    print(f"\n{len(fits)} fits; {left} left out with a point more than {args.max_resid} us off "
          "their line (a shape's grid near a wave's end, or an occupancy step)")


if __name__ == "__main__":
    main()
