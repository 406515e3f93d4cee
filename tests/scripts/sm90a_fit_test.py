#!/usr/bin/env python3
"""scripts/sm90a_fit.py on a small SQLite file of known lines: a config whose race times lie on
a + b * G (G = K / 128) is fitted to that a and b; a point off its line by more than --max-resid
leaves the config out of the summary; only SK 1 sm90a rows of the asked run count; a grid larger
than a wave is left out; a missing database or run is refused with a message and a non-zero exit."""
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "sm90a_fit.py")


def make_db(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE measurements (run_id INTEGER, gen TEXT, sk INTEGER, dtype TEXT, "
               "n INTEGER, k INTEGER, m INTEGER, wv INTEGER, mb INTEGER, npw INTEGER, nt INTEGER, "
               "st INTEGER, median_us REAL)")
    rows = []
    for k in (2048, 5120, 8704):  # G = 16, 40, 68
        g = k // 128
        # On the line 3 + 0.5 G: WV 8 MB 4 NPW 2 (256 rows a block), N 5120 -> 20 blocks.
        rows.append((1, "sm90a", 1, "w4a8", 5120, k, 64, 8, 4, 2, 1, 4, 3.0 + 0.5 * g))
        # Another config on 2 + 0.25 G, one point 3 us off: left out of the summary.
        rows.append((1, "sm90a", 1, "w4a8", 5120, k, 64, 8, 4, 1, 1, 4,
                     2.0 + 0.25 * g + (3.0 if g == 40 else 0.0)))
        # Not counted: SK 4, another run, another generation, and a grid of 2 waves (N 65536).
        rows.append((1, "sm90a", 4, "w4a8", 5120, k, 64, 8, 4, 2, 1, 4, 99.0))
        rows.append((2, "sm90a", 1, "w4a8", 5120, k, 64, 8, 4, 2, 1, 4, 99.0))
        rows.append((1, "ldg", 1, "w4a8", 5120, k, 64, 8, 4, 2, 1, 4, 99.0))
        rows.append((1, "sm90a", 1, "w4a16", 65536, k, 64, 8, 4, 2, 1, 4, 99.0))
    db.executemany("INSERT INTO measurements VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    db.commit()
    db.close()


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class Sm90aFit(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "fit.db")
        make_db(self.db)

    def tearDown(self):
        self.dir.cleanup()

    def test_a_line_is_fitted_and_an_outlier_is_left_out(self):
        r = run(self.db, "--all")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("w4a8 WV 8 MB 4 NPW 2 NT 1 ST 4 M 64: a 3.00 us, b 0.500 us/stage", r.stdout)
        self.assertIn("| w4a8 | 4 | 1 | 3.00 (3.00-3.00) | 0.500 (0.500-0.500) |", r.stdout)
        self.assertIn("2 fits; 1 left out", r.stdout)
        self.assertNotIn("w4a16", r.stdout)  # two waves
        self.assertNotIn("99", r.stdout)

    def test_a_wider_residual_keeps_both(self):
        r = run(self.db, "--max-resid", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("| w4a8 | 4 | 2 |", r.stdout)

    def test_bad_input_is_refused(self):
        r = run(os.path.join(self.dir.name, "missing.db"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read", r.stderr)
        r = run(self.db, "--run", "7")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("run 7", r.stderr)


if __name__ == "__main__":
    unittest.main()
