#!/usr/bin/env python3
"""scripts/sass_ctrl.py against probe kernels (tests/scripts/sass_probes.cu) compiled here by nvcc
for sm_90a: the opcode names, the scoreboard fields and the in-flight walk. Skips (exit 0, "SKIP")
where there is no nvcc."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sass_ctrl  # noqa: E402


def nvcc():
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if c and os.path.exists(c):
            return c
    return None


def ops(ins):
    return [sass_ctrl.op_name(d["op"]) for d in ins]


def main():
    cc = nvcc()
    if not cc:
        print("SKIP: no nvcc")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "probes.cubin")
        subprocess.run([cc, "-cubin", "-arch=sm_90a", os.path.join(HERE, "sass_probes.cu"), "-o",
                        cubin], check=True)
        ks = sass_ctrl.kernels(cubin)
    assert set(ks) >= {"probe_ldg", "probe_mma", "probe_cp_async", "probe_wait_groups",
                       "probe_two_batches"}, ks.keys()

    # The store waits on the one load's write scoreboard.
    ldg = ks["probe_ldg"]
    loads = [d for d in ldg if sass_ctrl.op_name(d["op"]) == "LDG"]
    stores = [d for d in ldg if sass_ctrl.op_name(d["op"]) == "STG"]
    assert len(loads) == 1 and len(stores) == 1, ops(ldg)
    assert loads[0]["wsb"] != 7 and stores[0]["wait"] >> loads[0]["wsb"] & 1

    # Both MMAs are named, and the f16 one waits for its operands' loads.
    mma = ks["probe_mma"]
    names = ops(mma)
    assert "HMMA" in names and "IMMA" in names, names
    sbs = {d["wsb"] for d in mma if sass_ctrl.op_name(d["op"]) == "LDG"}
    hmma = next(d for d in mma if sass_ctrl.op_name(d["op"]) == "HMMA")
    assert any(hmma["wait"] >> b & 1 for b in sbs), (sbs, hmma["wait"])

    # cp.async: LDGSTS, the group commit (LDGDEPBAR), the wait (DEPBAR), the barrier, LDS.
    names = ops(ks["probe_cp_async"])
    for want in ("LDGSTS", "LDGDEPBAR", "DEPBAR", "BAR", "LDS"):
        assert want in names, (want, names)

    # cp.async.wait_group 2, 1, 0 -> DEPBAR counts 2, 1, 0, in order.
    counts = [sass_ctrl.depbar_count(d) for d in ks["probe_wait_groups"]
              if sass_ctrl.op_name(d["op"]) == "DEPBAR"]
    assert counts == [2, 1, 0], counts

    # Two batches on different scoreboards: the first wait leaves loads in flight.
    rows = sass_ctrl.flight(ks["probe_two_batches"])
    assert rows and rows[0][2] > 0, rows
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
