#!/usr/bin/env bash
# The one-command pipeline of docs/QUANT.md on a subset of the drafter shapes: a seeded bf16
# checkpoint (scripts/make_drafter_checkpoint.py, with its auto_gptq twin) through
# `r4tune quant int4 --layout sm80`, `quant mxfp4 --layout mx_sm89` and `quant gptq`; each must
# exit 0 and write the tensors the docs name.
# Usage: drafter_pipeline_test.sh PYTHON SOURCE_ROOT R4TUNE WORK_DIR
set -euo pipefail
py=$1 src=$2 r4tune=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
"$py" "$src/scripts/make_drafter_checkpoint.py" --out "$work/drafter.safetensors" \
  --shapes hidden_projection,o_proj --seed 7 --gptq "$work/drafter_gptq.safetensors"
"$r4tune" quant int4 "$work/drafter.safetensors" "$work/int4_sm80.safetensors" --layout sm80
"$r4tune" quant mxfp4 "$work/drafter.safetensors" "$work/mxfp4.safetensors" --layout mx_sm89
"$r4tune" quant gptq "$work/drafter_gptq.safetensors" "$work/gptq.safetensors"
expect() {  # FILE NAME DTYPE SHAPE: `quant inspect` lists that tensor
  "$r4tune" quant inspect "$1" | grep -E "^$2 +$3 +\\[$4\\] " >/dev/null ||
    { echo "missing in $1: $2 $3 [$4]"; "$r4tune" quant inspect "$1"; exit 1; }
}
x=layers.0.o_proj.weight
expect "$work/int4_sm80.safetensors" "$x.q" I8 "5120, 2048"
expect "$work/int4_sm80.safetensors" "$x.scale" F32 "5120, 16"
expect "$work/int4_sm80.safetensors" "$x.wq" U32 "1310720"
expect "$work/int4_sm80.safetensors" "$x.wsz" U32 "81920"
expect "$work/mxfp4.safetensors" "$x" U8 "5120, 1024"
expect "$work/mxfp4.safetensors" "${x}_scale" U8 "5120, 64"
expect "$work/mxfp4.safetensors" "$x.wq" U32 "1310720"
expect "$work/mxfp4.safetensors" "$x.wsz" U32 "81920"
expect "$work/gptq.safetensors" layers.0.o_proj.qweight I32 "5120, 256"
expect "$work/gptq.safetensors" layers.0.o_proj.scales F16 "16, 5120"
expect "$work/gptq.safetensors" layers.0.hidden_projection.qweight I32 "256, 640"
# The auto_gptq twin decodes, through `quant gptq`'s transposed output, to the bf16 weights within
# plain absmax int4's error (about 0.117 relative RMS on Gaussian weights; the clip search gets
# 0.101): a nibble-order or transpose slip would give about 1.4.
"$py" - "$work" <<'PY'
import json, struct, sys
import numpy as np
def load(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    types = {"BF16": np.uint16, "I32": np.int32, "F16": np.float16}
    out = {}
    for k, v in json.loads(b[8:8 + n]).items():
        if k != "__metadata__":
            s, e = v["data_offsets"]
            out[k] = np.frombuffer(b[8 + n + s:8 + n + e], dtype=types[v["dtype"]]).reshape(v["shape"])
    return out
w, g = load(sys.argv[1] + "/drafter.safetensors"), load(sys.argv[1] + "/gptq.safetensors")
for x in ("layers.0.o_proj", "layers.0.hidden_projection"):
    ref = (w[x + ".weight"].astype(np.uint32) << 16).view(np.float32)
    qt = g[x + ".qweight"].view(np.uint32)
    n, k = qt.shape[0], qt.shape[1] * 8
    codes = np.stack([(qt >> (4 * j)) & 0xF for j in range(8)], axis=2).reshape(n, k)
    deq = (codes.astype(np.float32) - 8) * g[x + ".scales"].astype(np.float32).T.repeat(128, axis=1)
    rel = float(np.sqrt(((deq - ref) ** 2).sum() / (ref ** 2).sum()))
    print(f"{x}: GPTQ round trip rel RMS {rel:.4f}")
    assert 0.10 < rel < 0.13, rel
PY
echo "drafter pipeline: ok"
