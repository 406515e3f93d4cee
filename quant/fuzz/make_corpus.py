#!/usr/bin/env python3
"""Writes the seed corpora of the checkpoint-loader fuzz targets (python3 standard library only).

    python3 quant/fuzz/make_corpus.py   # -> quant/fuzz/corpus_gptq/, quant/fuzz/corpus_mxfp4/

Small valid files (each under 4 KB, libFuzzer's default -max_len) that reach every branch of
load_gptq / plan_mxfp4, plus one refused file per check, so mutations start next to each one.
Deterministic: the same bytes on every run.
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def safetensors(tensors, metadata=None):
    """tensors: list of (name, dtype, shape, raw bytes) in data order."""
    header, off, data = {}, 0, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        yield x >> 33


def f16(v):
    return struct.pack("<e", v)


def gptq(k=128, n=8, zero=0x77777777, scale=0.01, group=128, seed=1, prefix="l"):
    r = lcg(seed)
    qw = struct.pack(f"<{k // 8 * n}I", *[next(r) & 0xFFFFFFFF for _ in range(k // 8 * n)])
    sc = b"".join(f16(scale * (1 + (next(r) % 7))) for _ in range(k // group * n))
    qz = struct.pack(f"<{k // group * n // 8}I", *[zero] * (k // group * n // 8))
    return [(prefix + ".qweight", "I32", [k // 8, n], qw),
            (prefix + ".scales", "F16", [k // group, n], sc),
            (prefix + ".qzeros", "I32", [k // group, n // 8], qz)]


def floats(name, n, k, dtype="F32", seed=2, special=None):
    r = lcg(seed)
    vals = [((next(r) % 2001) - 1000) / 1000.0 for _ in range(n * k)]
    if special is not None:
        vals[special[0]] = special[1]
    if dtype == "F32":
        raw = struct.pack(f"<{n * k}f", *vals)
    elif dtype == "F16":
        raw = b"".join(f16(v) for v in vals)
    else:  # BF16: the high half of the f32
        raw = b"".join(struct.pack("<f", v)[2:] for v in vals)
    return [(name, dtype, [n, k], raw)]


def nvfp4(x="m", n=16, k=64, parts=1, seed=3, scale_byte=None, gscale=2688.0):
    r = lcg(seed)
    packed = bytes(next(r) & 0xFF for _ in range(n * k // 2))
    sc = bytes(scale_byte if scale_byte is not None else 0x30 + next(r) % 16
               for _ in range(n * k // 16))
    gs = struct.pack(f"<{parts}f", *[gscale] * parts)
    return [(x + ".weight_packed", "U8", [n, k // 2], packed),
            (x + ".weight_scale", "F8_E4M3", [n, k // 16], sc),
            (x + ".weight_global_scale", "F32", [parts], gs)]


def write(folder, files):
    path = os.path.join(HERE, folder)
    os.makedirs(path, exist_ok=True)
    for name, blob in files.items():
        assert len(blob) < 4096, (name, len(blob))
        with open(os.path.join(path, name + ".safetensors"), "wb") as f:
            f.write(blob)


def main():
    write("corpus_gptq", {
        "valid": safetensors(gptq()),
        "valid_two": safetensors(gptq(prefix="a", seed=4) + gptq(k=256, n=8, prefix="b", seed=5)),
        "valid_metadata": safetensors(gptq(), {
            "quantization_config": json.dumps({"bits": 4, "group_size": 128, "sym": True}),
            "format": "pt"}),
        "metadata_flat": safetensors(gptq(), {"group_size": "128", "sym": "True", "bits": "4"}),
        "asymmetric": safetensors(gptq(zero=0x77777778)),
        "group64": safetensors(gptq(group=64)),
        "nan_scale": safetensors(gptq()[:1] + [("l.scales", "F16", [1, 8], f16(float("nan")) * 8)]
                                 + gptq()[2:]),
        "no_qzeros": safetensors(gptq()[:2]),
    })
    write("corpus_mxfp4", {
        "nvfp4": safetensors(nvfp4()),
        "nvfp4_two_parts": safetensors(nvfp4(n=32, k=32, parts=2)),
        "f32": safetensors(floats("d.weight", 16, 32)),
        "bf16": safetensors(floats("b.weight", 16, 32, "BF16")),
        "f16_nan": safetensors(floats("h.weight", 4, 32, "F16", special=(5, float("nan")))),
        "f32_inf": safetensors(floats("i.weight", 2, 32, special=(0, float("inf")))),
        "k48": safetensors(floats("k.weight", 2, 48)),
        "fp8_block": safetensors([("e.weight", "F8_E4M3", [16, 64], bytes([0x38] * 1024)),
                                  ("e.weight_scale_inv", "F32", [1, 1], struct.pack("<f", 0.5))]),
        "nvfp4_nan_scale": safetensors(nvfp4(n=16, k=32, scale_byte=0x7F)),
        "mixed": safetensors(nvfp4(n=16, k=32) + floats("z.weight", 16, 32, seed=9)),
    })


if __name__ == "__main__":
    main()
