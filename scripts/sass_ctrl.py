#!/usr/bin/env python3
"""The control bits of every instruction in a CUDA cubin (sm_70 and later), without a disassembler.

Usage: sass_ctrl.py CUBIN [KERNEL] [--flight]

Why: this machine has nvcc and ptxas but no cuobjdump or nvdisasm, and the question of session 9
(docs/PERF.md) is *when* a warp waits for its loads: ptxas gives every variable-latency
instruction (global and shared loads, MMA) one of six scoreboards to signal on completion, and
every instruction carries a mask of the scoreboards it waits for first. If a load that is meant
to stay in flight shares a scoreboard with one that is waited for, the wait covers both.

Each instruction is 128 bits, two little-endian 64-bit words (lo, hi). The scheduling control is
in hi's top bits (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking",
2018; the same layout for Turing, Ampere and Hopper): stall cycles hi[44:41], yield hi[45],
write scoreboard hi[48:46] (7: none), read scoreboard hi[51:49] (7: none), wait mask hi[57:52],
reuse hi[61:58]. The opcode is lo[11:0]; the names below were matched against probe kernels
compiled here with nvcc 13.0 for sm_90a (tests/scripts/sass_ctrl_test.py); anything else prints
as its hex opcode.
"""
import struct
import sys

# lo[11:0] -> name, from probes (see the test); the family, not the exact variant.
OPCODES = {
    0x981: "LDG", 0x986: "STG", 0x984: "LDS", 0x388: "STS", 0xFAE: "LDGSTS", 0x9AF: "LDGDEPBAR",
    0x91A: "DEPBAR", 0xB1D: "BAR", 0x23C: "HMMA", 0x237: "IMMA", 0x94D: "EXIT", 0x947: "BRA",
    0x918: "NOP", 0xB82: "LDC", 0x919: "S2R",
}


def sections(data):
    """(name, offset, size) of every ELF64 section."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = []
    for h in heads:
        end = names.index(b"\0", h[0])
        out.append((names[h[0]:end].decode(), h[4], h[5]))
    return out


def decode(word):
    lo, hi = struct.unpack("<QQ", word)
    return {
        "op": lo & 0xFFF,
        "stall": (hi >> 41) & 0xF,
        "yield": (hi >> 45) & 1,
        "wsb": (hi >> 46) & 7,
        "rsb": (hi >> 49) & 7,
        "wait": (hi >> 52) & 0x3F,
        "lo": lo,
        "hi": hi,
    }


def kernels(path):
    data = open(path, "rb").read()
    out = {}
    for name, off, size in sections(data):
        if name.startswith(".text."):
            body = data[off:off + size]
            out[name[len(".text."):]] = [decode(body[i:i + 16]) for i in range(0, len(body), 16)]
    return out


def depbar_count(d):
    """DEPBAR's count N (cp.async.wait_group N: wait until at most N groups are outstanding),
    lo[43:38]; probes compiled with wait_group 3, 2, 1, 0 give 3, 2, 1, 0."""
    return (d["lo"] >> 38) & 0x3F


def op_name(op):
    return OPCODES.get(op, f"op{op:03x}")


def flight(ins):
    """Walks the code in address order (a loop body as straight-line code). Every LDG joins the
    outstanding set of its write scoreboard; an instruction waiting on a scoreboard retires that
    set. Returns one row per wait that retires LDGs: (address, retired, still outstanding)."""
    out_sb = [0] * 6
    rows = []
    for i, d in enumerate(ins):
        if d["wait"]:
            retired = sum(out_sb[b] for b in range(6) if d["wait"] >> b & 1)
            for b in range(6):
                if d["wait"] >> b & 1:
                    out_sb[b] = 0
            if retired:
                rows.append((i * 16, retired, sum(out_sb)))
        if OPCODES.get(d["op"]) == "LDG" and d["wsb"] != 7:
            out_sb[d["wsb"]] += 1
    return rows


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    ks = kernels(argv[1])
    want = [a for a in argv[2:] if not a.startswith("--")]
    for k, ins in ks.items():
        if want and k not in want:
            continue
        print(f"== {k}: {len(ins)} instructions")
        if "--flight" in argv:
            rows = flight(ins)
            for a, r, left in rows:
                print(f"{a:6x} wait retires {r:3d} LDG, {left:3d} stay in flight")
            ldg = sum(1 for d in ins if OPCODES.get(d["op"]) == "LDG")
            print(f"{ldg} LDG, {len(rows)} waits on LDG scoreboards")
            continue
        for i, d in enumerate(ins):
            wsb = "-" if d["wsb"] == 7 else str(d["wsb"])
            rsb = "-" if d["rsb"] == 7 else str(d["rsb"])
            wait = "".join(str(b) for b in range(6) if d["wait"] >> b & 1) or "-"
            extra = f" le {depbar_count(d)}" if op_name(d["op"]) == "DEPBAR" else ""
            print(f"{i * 16:6x} {op_name(d['op']):>8} stall {d['stall']:2d} wsb {wsb} rsb {rsb} "
                  f"wait {wait:6s} {d['lo']:016x} {d['hi']:016x}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
