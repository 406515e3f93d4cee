#!/usr/bin/env python3
"""Writes a synthetic DFlash drafter checkpoint: bf16 weights of the six shapes in
configs/dflash.toml, from a seeded RNG, as one safetensors file that `r4tune quant` reads.

    python3 scripts/make_drafter_checkpoint.py --out drafter.safetensors \
        [--seed 0] [--scale 0.02] [--shapes qkv_proj,o_proj] [--layers 1] [--gptq gptq.safetensors]

Tensors are `layers.{i}.{shape}.weight`, BF16 [N, K], Gaussian * scale (round to nearest even
from f32). Each tensor has its own stream, seeded by (seed, layer, index of the shape in the
config), so a subset (--shapes) holds the same values as the full file for those tensors.

--gptq PATH also writes the same weights (their bf16 values) as an AutoGPTQ / AutoRound
`auto_gptq` checkpoint, symmetric int4 group 128, the format of seed 002 that `r4tune quant gptq`
reads: `X.qweight` I32 [K/8, N] (nibble j of word [kw, n] is k = 8*kw + j, code c means c - 8),
`X.scales` F16 [K/128, N] (absmax / 7 per group, no clip search), `X.qzeros` I32 [K/128, N/8]
all 0x77777777, and a quantization_config in __metadata__ (bits 4, group_size 128, sym true).

python3 + numpy only (Debian's python3-numpy; no torch).
"""
import argparse
import json
import os
import struct
import sys
import tomllib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUP = 128
PACK = 8


def load_shapes(config):
    with open(config, "rb") as f:
        spec = tomllib.load(f)
    return [(s["name"], int(s["n"]), int(s["k"])) for s in spec["shapes"]]


def gaussian(seed, layer, index, n, k, scale):
    rng = np.random.default_rng(np.random.SeedSequence([seed, layer, index]))
    return rng.standard_normal((n, k), dtype=np.float32) * np.float32(scale)


def bf16_bits(w):
    """f32 -> bf16 bits, round to nearest even (no NaN in the input)."""
    u = w.view(np.uint32)
    return ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)) \
        .astype(np.uint16)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def gptq_pack(w):
    """w f32 [N, K] -> (qweight int32 [K/8, N], scales f16 [K/128, N], qzeros int32 [K/128, N/8])."""
    n, k = w.shape
    g = w.reshape(n, k // GROUP, GROUP)
    amax = np.abs(g).max(axis=2)
    scale = np.maximum(amax / np.float32(7), np.float32(1e-8)).astype(np.float16)  # [N, K/128]
    s32 = scale.astype(np.float32)[:, :, None]
    q = np.clip(np.rint(g / s32), -8, 7).astype(np.int32).reshape(n, k) + 8  # codes 0..15
    codes = q.astype(np.uint32).reshape(n, k // PACK, PACK)
    words = np.zeros((n, k // PACK), dtype=np.uint32)
    for j in range(PACK):
        words |= codes[:, :, j] << np.uint32(4 * j)
    qweight = np.ascontiguousarray(words.T).view(np.int32)  # [K/8, N]
    scales = np.ascontiguousarray(scale.T)  # [K/128, N]
    qzeros = np.full((k // GROUP, n // PACK), 0x77777777, dtype=np.uint32).view(np.int32)
    return qweight, scales, qzeros


class Writer:
    """Streams tensors into a safetensors file whose header is known up front."""

    def __init__(self, path, entries, metadata=None):
        # entries: [(name, dtype, shape, nbytes)] in data order.
        header, off = {}, 0
        if metadata:
            header["__metadata__"] = metadata
        for name, dtype, shape, nbytes in entries:
            header[name] = {"dtype": dtype, "shape": list(shape),
                            "data_offsets": [off, off + nbytes]}
            off += nbytes
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * ((8 - len(text) % 8) % 8)
        self.tmp = path + ".tmp"
        self.path = path
        self.f = open(self.tmp, "wb")
        self.f.write(struct.pack("<Q", len(text)) + text)

    def add(self, array):
        self.f.write(np.ascontiguousarray(array).tobytes())

    def close(self):
        self.f.close()
        os.replace(self.tmp, self.path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output .safetensors (bf16 weights)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=float, default=0.02, help="standard deviation")
    ap.add_argument("--shapes", default="", help="comma-separated subset of the config's names")
    ap.add_argument("--layers", type=int, default=1, help="copies of the six, layers.0 .. N-1")
    ap.add_argument("--gptq", default="", help="also write an auto_gptq int4 g128 checkpoint")
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "dflash.toml"))
    a = ap.parse_args()

    shapes = load_shapes(a.config)
    if a.shapes:
        wanted = [s.strip() for s in a.shapes.split(",") if s.strip()]
        known = {name for name, _, _ in shapes}
        unknown = [s for s in wanted if s not in known]
        if unknown:
            sys.exit(f"--shapes: unknown {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    else:
        wanted = [name for name, _, _ in shapes]
    todo = [(layer, i, name, n, k) for layer in range(a.layers)
            for i, (name, n, k) in enumerate(shapes) if name in wanted]

    out = Writer(a.out, [(f"layers.{l}.{name}.weight", "BF16", (n, k), n * k * 2)
                         for l, _, name, n, k in todo])
    gq = None
    if a.gptq:
        for _, _, name, n, k in todo:
            if k % GROUP or n % PACK:
                sys.exit(f"--gptq: {name} [{n}, {k}] needs K % 128 == 0 and N % 8 == 0")
        entries = []
        for l, _, name, n, k in todo:
            x = f"layers.{l}.{name}"
            entries += [(x + ".qweight", "I32", (k // PACK, n), k // PACK * n * 4),
                        (x + ".scales", "F16", (k // GROUP, n), k // GROUP * n * 2),
                        (x + ".qzeros", "I32", (k // GROUP, n // PACK), k // GROUP * n // PACK * 4)]
        config = {"bits": 4, "group_size": GROUP, "sym": True, "desc_act": False,
                  "quant_method": "gptq", "checkpoint_format": "gptq"}
        gq = Writer(a.gptq, entries, {"format": "pt", "quantization_config": json.dumps(config)})
    for l, i, name, n, k in todo:
        bits = bf16_bits(gaussian(a.seed, l, i, n, k, a.scale))
        out.add(bits)
        if gq is not None:
            for arr in gptq_pack(bf16_to_f32(bits)):
                gq.add(arr)
        print(f"layers.{l}.{name}.weight [{n}, {k}] BF16")
    out.close()
    if gq is not None:
        gq.close()
    print(f"{len(todo)} tensors -> {a.out}" + (f", GPTQ -> {a.gptq}" if a.gptq else ""))


if __name__ == "__main__":
    main()
