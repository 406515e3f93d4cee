"""r4d_torch: r4d's 4-bit GEMMs as torch custom ops and Linear modules (issue 13 item 3).

Ops (namespace ``r4d``, registered at import through ``torch.library``):

    torch.ops.r4d.linear_w4a16(x, wq, wsz, N)       int4 g128 (sm80 layout) x bf16
    torch.ops.r4d.linear_w4a8fp8(x, wq, wsz, N)     int4 g128 (sm80 layout) x e4m3, per-row scale
    torch.ops.r4d.linear_mxfp4a8fp8(x, wq, wsz, N)  e2m1 + e8m0/32 (mx_sm89 layout) x e4m3

``x`` bf16 ``[..., K]``; ``wq`` / ``wsz`` int32 tensors holding the packed words (N*K/8 and
N*K/128 of them; the numpy packers return uint32, viewed as int32); the output is bf16 ``[..., N]``.
Each op has a fake (meta) implementation, so it traces under ``torch.compile(fullgraph=True)`` and
its CUDA implementation can be captured in a CUDA graph (no allocation outside torch's allocator,
no synchronisation).

The path is chosen INSIDE the op, as seeds/002 does, so dynamo never sees a shape branch: with
M = prod(x.shape[:-1]) rows, 1 <= M <= r4d.GEMM_W4_MAX_M and a table row for (N, K, M) in that
dtype the r4d kernel runs; otherwise (more rows, or no row) the weight is dequantised to bf16 ONCE
(cached, keyed by the packed tensors) and torch's bf16 matmul runs. ``path_for`` says which.

Modules: ``W4A16Linear``, ``W4A8Fp8Linear``, ``MXFP4Linear``, each with ``from_safetensors(path,
prefix)`` reading what ``r4tune quant`` writes (int4 ``--layout sm80``, gptq, mxfp4) and the
original GPTQ/AutoRound and NVFP4 checkpoints (loaders ported from quant/, tested against the same
fixtures the CLI is held to), and ``from_float(W)``.

Why a top-level module and not ``r4d.torch``: ``r4d`` is one compiled extension
(``r4d.cpython-*.so``, kernels/r4d/CMakeLists.txt ``OUTPUT_NAME r4d``), not a package, so it
cannot hold a ``torch`` submodule without turning it into a package and renaming the extension;
and importing torch must stay optional for ``import r4d`` users (the seeds, the numpy tests).
``r4d_torch`` imports ``r4d`` lazily: the ops register (and the fake paths work) without it.

Works on torch 2.x (``torch.library.register_fake`` / ``impl_abstract`` where present) and on
Debian 12's torch 1.13 (a ``Meta`` kernel plus an ``Autograd`` kernel that redispatches below
autograd, since 1.13 has no autograd fallthrough for the Meta key).
"""
import json
import math
import os
import struct
import weakref

import numpy as np
import torch

__all__ = ["W4A16Linear", "W4A8Fp8Linear", "MXFP4Linear", "path_for", "dequantize_packed",
           "load_safetensors", "clear_dense_cache", "set_dense_fallback", "FORMATS"]

GROUP = 128        # int4 scale group along K (r4d.GEMM_W4_GROUP)
MX_BLOCK = 32      # MXFP4 e8m0 block along K
MAX_M = 64         # r4d.GEMM_W4_MAX_M; read from r4d when it is importable
_FP8_MIN_CC = (8, 9)

# op name -> (r4d dtype, weight layout)
FORMATS = {
    "linear_w4a16": ("w4a16", "sm80"),
    "linear_w4a8fp8": ("w4a8fp8", "sm80"),
    "linear_mxfp4a8fp8": ("mxfp4a8fp8", "mx_sm89"),
}
_FP8_DTYPES = ("w4a8fp8", "mxfp4a8fp8")

_TORCH2 = int(torch.__version__.split(".")[0]) >= 2


# ---- r4d, imported on first use --------------------------------------------------------------
_r4d_mod = []


def _r4d():
    if not _r4d_mod:
        try:
            import r4d  # noqa: PLC0415
        except ImportError as e:
            raise RuntimeError(
                "r4d_torch: the r4d extension module is not importable (build target r4d_python and "
                f"put its folder on PYTHONPATH): {e}") from e
        _r4d_mod.append(r4d)
    return _r4d_mod[0]


def _need(name):
    """r4d.<name>, or NotImplementedError naming it (the fp8 dtypes arrive with issue 13 item 3)."""
    fn = getattr(_r4d(), name, None)
    if fn is None:
        raise NotImplementedError(
            f"r4d.{name} is not in this build of the r4d module (r4d_torch needs it; see "
            "kernels/r4d/README.md 'torch integration' for the contract)")
    return fn


def _max_m():
    try:
        return int(_r4d().GEMM_W4_MAX_M)
    except RuntimeError:
        return MAX_M


_DENSE_FALLBACK = [True]


def set_dense_fallback(enabled: bool):
    """With False, the ops raise ValueError for M outside the kernels' band or without a table row
    instead of switching to the dequantised bf16 matmul (for benchmarks that must not fall back)."""
    _DENSE_FALLBACK[0] = bool(enabled)


# ---- input validation (shared by the fake and the real implementations) ----------------------
def _dims(op, x, wq, wsz, N):
    """(K, M-expression) after checking what can be checked without a device."""
    if x.dtype != torch.bfloat16:
        raise ValueError(f"r4d::{op}: x must be bfloat16, got {x.dtype}")
    for nm, t in (("wq", wq), ("wsz", wsz)):
        if t.dtype != torch.int32:
            raise ValueError(f"r4d::{op}: {nm} must be int32 (packed words), got {t.dtype}")
    if x.dim() < 1:
        raise ValueError(f"r4d::{op}: x must have at least one dimension [..., K]")
    N = int(N)
    if N <= 0 or N % 16:
        raise ValueError(f"r4d::{op}: shape: N = {N} must be a positive multiple of 16")
    nwq = wq.numel()
    if (nwq * 8) % N:
        raise ValueError(f"r4d::{op}: shape: wq has {nwq} words, not N*K/8 for N = {N}")
    K = nwq * 8 // N
    kmul = GROUP if FORMATS[op][1] == "sm80" else 64
    if K == 0 or K % kmul:
        raise ValueError(f"r4d::{op}: shape: K = {K} (from wq) must be a positive multiple of {kmul}")
    if wsz.numel() != N * K // 128:
        raise ValueError(f"r4d::{op}: shape: wsz has {wsz.numel()} words, want N*K/128 = "
                         f"{N * K // 128} for N = {N}, K = {K}")
    if x.shape[-1] != K:
        raise ValueError(f"r4d::{op}: shape: x has K = {x.shape[-1]} but the weight has K = {K}")
    return K


def path_for(op, N, K, M):
    """'kernel' or 'dense': what the op does for M rows (the decision the op makes inside)."""
    if op not in FORMATS:
        op = "linear_" + op if ("linear_" + op) in FORMATS else op
    dtype = FORMATS[op][0]
    if not 1 <= M <= _max_m():
        return "dense"
    cfg = _need("config_for")(N, K, M, dtype=dtype)
    return "kernel" if cfg is not None else "dense"


# ---- the dequantised-weight cache for the dense path ------------------------------------------
# key: (op, wq.data_ptr(), wsz.data_ptr(), N, device) -> (wq, wsz, versions, dense bf16 [N, K]).
# The entry holds the packed tensors themselves, so their memory cannot be reused by another
# tensor while the entry lives (a data_ptr key can then not alias other weights); in-place writes
# are caught through the version counters. Modules drop their entries when collected or moved.
_DENSE = {}


def clear_dense_cache():
    _DENSE.clear()


def _drop_dense(wq, wsz):
    for key in [k for k, v in _DENSE.items() if v[0] is wq or v[1] is wsz
                or (k[1] == wq.data_ptr() and k[2] == wsz.data_ptr())]:
        del _DENSE[key]


def _dense_weight(op, wq, wsz, N, K):
    key = (op, wq.data_ptr(), wsz.data_ptr(), int(N), str(wq.device))
    ent = _DENSE.get(key)
    ver = (wq._version, wsz._version)
    if ent is not None and ent[2] == ver:
        return ent[3]
    if torch.cuda.is_available() and torch.cuda.is_current_stream_capturing():
        raise RuntimeError(
            f"r4d::{op}: the dense path (M outside the kernel band) needs the dequantised weight "
            f"for N = {N}, K = {K}, which is not cached yet, and the stream is capturing a CUDA "
            "graph: run one eager call with the same M band (or module.prepare_dense()) first")
    w = dequantize_packed(FORMATS[op][1], wq, wsz, N, K).to(torch.bfloat16).contiguous()
    _DENSE[key] = (wq, wsz, ver, w)
    return w


# ---- layout unpacking (quant/layout/sm80.h and mx_sm89.h, vectorised) --------------------------
_E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _positions(layout, n, k, K):
    """(dword, shift) int64 tensors for codes at rows n (column vector) and columns k (row)."""
    tile, r = n // 16, n % 16
    block, kk = k // 64, k % 64
    g, hi = r & 7, r >> 3
    if layout == "sm80":
        t, s, i = kk >> 4, (kk >> 2) & 3, 2 * (kk & 3) + hi
        lane = 4 * g + t
        shift = 4 * i
    else:  # mx_sm89
        step, w = kk >> 5, kk & 31
        t, h, j = w >> 3, (w >> 2) & 1, w & 3
        lane = 4 * g + t
        s = 2 * step + h
        shift = 8 * j + 4 * hi
    dword = ((tile * (K // 64) + block) * 32 + lane) * 4 + s
    return dword, shift


def unpack_codes(layout, wq, N, K, rows=None):
    """4-bit codes [len(rows), K] (int64 0..15) of packed words wq, on wq's device."""
    dev = wq.device
    words = wq.reshape(-1).to(torch.int64) & 0xFFFFFFFF
    n = (torch.arange(N, device=dev) if rows is None else rows).to(torch.int64)[:, None]
    k = torch.arange(K, device=dev, dtype=torch.int64)[None, :]
    dword, shift = _positions(layout, n, k, K)
    return (words[dword] >> shift) & 0xF


def dequantize_packed(layout, wq, wsz, N, K, chunk=2048):
    """f32 [N, K] weights from packed words: sm80 -> code (two's complement) * f16 scale (the low
    half of each scale dword); mx_sm89 -> e2m1(code) * 2^(e8m0 - 127)."""
    N, K = int(N), int(K)
    dev = wq.device
    out = torch.empty((N, K), dtype=torch.float32, device=dev)
    sw = wsz.reshape(-1).to(torch.int64) & 0xFFFFFFFF
    grid = torch.tensor(_E2M1, device=dev)
    for a in range(0, N, chunk):
        rows = torch.arange(a, min(N, a + chunk), device=dev, dtype=torch.int64)
        c = unpack_codes(layout, wq, N, K, rows)
        n = rows[:, None]
        if layout == "sm80":
            q = (c ^ 8) - 8
            gi = torch.arange(K // GROUP, device=dev, dtype=torch.int64)[None, :]
            idx = ((n // 16) * (K // GROUP) + gi) * 16 + (n % 16)
            s = _f16_bits_to_f32(sw[idx] & 0xFFFF)
            out[a:a + len(rows)] = (q.float().reshape(len(rows), K // GROUP, GROUP)
                                    * s[..., None]).reshape(len(rows), K)
        else:
            mag = grid[c & 7]
            v = torch.where((c & 8) != 0, -mag, mag)
            kb = torch.arange(K // MX_BLOCK, device=dev, dtype=torch.int64)[None, :]
            byte = ((n // 16) * (K // 64) + kb // 2) * 32 + 4 * (n % 16 & 7) + 2 * (n % 16 >> 3) + kb % 2
            e = (sw[byte // 4] >> (8 * (byte % 4))) & 0xFF
            sc = torch.exp2(e.float() - 127.0)
            out[a:a + len(rows)] = (v.reshape(len(rows), K // MX_BLOCK, MX_BLOCK)
                                    * sc[..., None]).reshape(len(rows), K)
    return out


def _f16_bits_to_f32(bits):
    """int64 tensor of f16 bit patterns -> f32 (exact), without relying on int16 views."""
    b = bits.to(torch.int32)
    return (b - ((b & 0x8000) << 1)).to(torch.int16).view(torch.float16).float()


# ---- the ops -----------------------------------------------------------------------------------
def _fake(op):
    def fake(x, wq, wsz, N):
        _dims(op, x, wq, wsz, N)
        return x.new_empty((*x.shape[:-1], int(N)), dtype=torch.bfloat16)
    fake.__name__ = f"{op}_fake"
    return fake


def _check_device(op, x, wq, wsz):
    for nm, t in (("x", x), ("wq", wq), ("wsz", wsz)):
        if t.device.type != "cuda":
            raise RuntimeError(f"r4d::{op}: device: {nm} is on {t.device}; r4d runs on CUDA devices "
                               "only (move the module / inputs with .cuda())")
    if wq.device != x.device or wsz.device != x.device:
        raise RuntimeError(f"r4d::{op}: device: x is on {x.device}, wq on {wq.device}, wsz on "
                           f"{wsz.device}")


_INITED = set()


def _cuda_impl(op):
    dtype = FORMATS[op][0]

    def impl(x, wq, wsz, N):
        K = _dims(op, x, wq, wsz, N)
        N = int(N)
        lead = x.shape[:-1]
        M = int(math.prod(lead)) if len(lead) else 1
        path = None
        if 1 <= M <= _max_m():
            cfg = _need("config_for")(N, K, M, dtype=dtype)
            path = "kernel" if cfg is not None else None
        if path is None and not _DENSE_FALLBACK[0]:
            raise ValueError(f"r4d::{op}: M = {M} rows is not served by a {dtype} kernel for N = {N}, "
                             f"K = {K} (band 1..{_max_m()}, table row required) and the dense "
                             "fallback is off")
        _check_device(op, x, wq, wsz)
        dev = x.device
        if dtype in _FP8_DTYPES:
            cc = torch.cuda.get_device_capability(dev)
            if cc < _FP8_MIN_CC:
                raise RuntimeError(f"r4d::{op}: device: {torch.cuda.get_device_name(dev)} is sm_"
                                   f"{cc[0]}{cc[1]}; {dtype} needs fp8 MMA (sm_89 or newer)")
        if M == 0:
            return x.new_empty((*lead, N), dtype=torch.bfloat16)
        if path != "kernel":
            w = _dense_weight(op, wq, wsz, N, K)
            return torch.matmul(x.reshape(M, K), w.t()).reshape(*lead, N)
        r4d = _r4d()
        devi = dev.index if dev.index is not None else torch.cuda.current_device()
        # init first: dtype_supported answers for a registered device only (False before init;
        # an fp8 op as a process's first r4d call was refused so on the H200, session 7).
        if devi not in _INITED and not torch.cuda.is_current_stream_capturing():
            r4d.init(devi)
            _INITED.add(devi)
        if dtype in _FP8_DTYPES and not _need("dtype_supported")(dtype, devi):
            raise RuntimeError(f"r4d::{op}: device: r4d.dtype_supported('{dtype}', {devi}) "
                               "is False for this device/build")
        a = x.reshape(M, K).contiguous()
        c = torch.empty((M, N), dtype=torch.bfloat16, device=dev)
        st = torch.cuda.current_stream(dev).cuda_stream
        if dtype == "w4a16":
            r4d.gemm_w4a16_nt_bf16(a.data_ptr(), wq.data_ptr(), wsz.data_ptr(), c.data_ptr(),
                                   M, K, N, *cfg, st)
        else:
            q = torch.empty((M, K), dtype=torch.uint8, device=dev)
            sc = torch.empty((M,), dtype=torch.float32, device=dev)
            # q in the order the config's GEMM reads (the sm90a generation's is not row-major).
            _need("quant_act_fp8")(a.data_ptr(), q.data_ptr(), sc.data_ptr(), M, K, st,
                                   order=_need("act_order")(tuple(cfg), dtype))
            _need("gemm_" + dtype + "_nt")(q.data_ptr(), sc.data_ptr(), wq.data_ptr(),
                                           wsz.data_ptr(), c.data_ptr(), M, K, N, *cfg, st)
        return c.reshape(*lead, N)
    impl.__name__ = f"{op}_cuda"
    return impl


def _cpu_impl(op):
    def impl(x, wq, wsz, N):
        K = _dims(op, x, wq, wsz, N)
        lead = x.shape[:-1]
        M = int(math.prod(lead)) if len(lead) else 1
        if not _DENSE_FALLBACK[0] and not 1 <= M <= _max_m():
            raise ValueError(f"r4d::{op}: M = {M} rows is outside the kernel band 1..{_max_m()} "
                             "and the dense fallback is off")
        _check_device(op, x, wq, wsz)
        raise AssertionError("unreachable")  # _check_device raises for CPU tensors
    impl.__name__ = f"{op}_cpu"
    return impl


def _register():
    lib = torch.library.Library("r4d", "DEF")
    for op in FORMATS:
        lib.define(f"{op}(Tensor x, Tensor wq, Tensor wsz, int N) -> Tensor")
        lib.impl(op, _cuda_impl(op), "CUDA")
        lib.impl(op, _cpu_impl(op), "CPU")
        reg = getattr(torch.library, "register_fake", None) or getattr(torch.library, "impl_abstract", None)
        if _TORCH2 and reg is not None:
            reg(f"r4d::{op}", _fake(op), lib=lib)
        else:
            lib.impl(op, _fake(op), "Meta")
            if not _TORCH2:  # 1.13: AutogradMeta has no fallthrough; redispatch below autograd
                ovl = getattr(torch.ops.r4d, op)

                def below(*args, _ovl=ovl):
                    guard = torch._C._AutoDispatchBelowAutograd()
                    try:
                        return _ovl(*args)
                    finally:
                        del guard
                lib.impl(op, below, "Autograd")
    return lib


_LIB = _register()


# ---- safetensors -------------------------------------------------------------------------------
_ST_DT = {"F64": (np.float64, 8), "F32": (np.float32, 4), "F16": (np.float16, 2),
          "BF16": (np.uint16, 2), "F8_E4M3": (np.uint8, 1), "F8_E5M2": (np.uint8, 1),
          "I64": (np.int64, 8), "I32": (np.int32, 4), "I16": (np.int16, 2), "I8": (np.int8, 1),
          "U64": (np.uint64, 8), "U32": (np.uint32, 4), "U16": (np.uint16, 2), "U8": (np.uint8, 1),
          "BOOL": (np.bool_, 1)}


class SafetensorsReader:
    """A validated safetensors reader (header JSON + raw little-endian bytes) on numpy, no new
    dependency. ``get(name)`` returns a numpy array (BF16 as uint16 bits, F8 as uint8 bytes),
    ``dtype(name)`` the file's dtype string. Every refusal is a ValueError naming the file and,
    where one is at fault, the tensor."""

    def __init__(self, path):
        self.path = str(path)
        size = os.path.getsize(self.path)
        with open(self.path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise ValueError(f"{self.path}: not a safetensors file ({size} bytes, no header length)")
            (hlen,) = struct.unpack("<Q", head)
            if hlen > min(size - 8, 100 << 20):
                raise ValueError(f"{self.path}: header length {hlen} exceeds the file ({size} bytes): "
                                 "truncated or not safetensors")
            try:
                hdr = json.loads(f.read(hlen))
            except (ValueError, UnicodeDecodeError) as e:
                raise ValueError(f"{self.path}: header is not valid JSON: {e}") from e
        if not isinstance(hdr, dict):
            raise ValueError(f"{self.path}: header is not a JSON object")
        self.metadata = hdr.pop("__metadata__", {}) or {}
        self.data_start = 8 + hlen
        data_size = size - self.data_start
        self.entries = {}
        for name, e in hdr.items():
            if not isinstance(e, dict) or e.get("dtype") not in _ST_DT:
                raise ValueError(f"{self.path}: tensor '{name}': missing or unknown dtype")
            shape, offs = e.get("shape"), e.get("data_offsets")
            if (not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape)
                    or not isinstance(offs, list) or len(offs) != 2
                    or not all(isinstance(o, int) for o in offs)):
                raise ValueError(f"{self.path}: tensor '{name}': bad shape or data_offsets")
            b, en = offs
            want = int(np.prod(shape, dtype=np.int64)) * _ST_DT[e["dtype"]][1]
            if not 0 <= b <= en or en > data_size:
                raise ValueError(f"{self.path}: tensor '{name}': data_offsets {offs} outside the "
                                 f"{data_size}-byte data section (truncated file?)")
            if en - b != want:
                raise ValueError(f"{self.path}: tensor '{name}': {en - b} bytes for {e['dtype']} "
                                 f"{shape} (want {want})")
            self.entries[name] = (e["dtype"], tuple(shape), b, en)

    def names(self):
        return list(self.entries)

    def __contains__(self, name):
        return name in self.entries

    def dtype(self, name):
        return self.entries[name][0]

    def shape(self, name):
        return self.entries[name][1]

    def get(self, name):
        if name not in self.entries:
            raise KeyError(f"{self.path}: no tensor '{name}'")
        dt, shape, b, en = self.entries[name]
        npdt = _ST_DT[dt][0]
        with open(self.path, "rb") as f:
            f.seek(self.data_start + b)
            raw = f.read(en - b)
        if len(raw) != en - b:
            raise ValueError(f"{self.path}: tensor '{name}': file truncated")
        return np.frombuffer(raw, dtype=np.dtype(npdt).newbyteorder("<")).reshape(shape).copy()


def load_safetensors(path):
    return SafetensorsReader(path)


def save_safetensors(path, tensors, metadata=None):
    """Write numpy arrays / torch tensors (bf16 as BF16) as safetensors: for tests and examples."""
    rev = {np.dtype(np.float64): "F64", np.dtype(np.float32): "F32", np.dtype(np.float16): "F16",
           np.dtype(np.int64): "I64", np.dtype(np.int32): "I32", np.dtype(np.int16): "I16",
           np.dtype(np.int8): "I8", np.dtype(np.uint64): "U64", np.dtype(np.uint32): "U32",
           np.dtype(np.uint16): "U16", np.dtype(np.uint8): "U8", np.dtype(np.bool_): "BOOL"}
    header, blobs, off = {}, [], 0
    for name, t in tensors.items():
        dts = None
        if isinstance(t, tuple):  # (dtype string, numpy array of the raw bits)
            dts, t = t
        if isinstance(t, torch.Tensor):
            t = t.detach().cpu().contiguous()
            if t.dtype == torch.bfloat16:
                dts, t = "BF16", t.view(torch.int16).numpy().view(np.uint16)
            else:
                t = t.numpy()
        a = np.ascontiguousarray(t)
        dts = dts or rev[a.dtype]
        raw = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dts, "shape": list(a.shape), "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    if metadata:
        header["__metadata__"] = dict(metadata)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# ---- loaders (ports of quant/gptq.cpp and quant/mxfp4.cpp, i.e. of seeds 002 / 003) -------------
def _finite(name, a):
    a = np.asarray(a, dtype=np.float64)
    bad = ~np.isfinite(a)
    if bad.any():
        idx = np.argwhere(bad)[0].tolist()
        raise ValueError(f"tensor '{name}': {int(bad.sum())} NaN or Inf values (first at {idx})")


def gptq_to_int4(qweight, scales, qzeros=None, names=("qweight", "scales", "qzeros"), transposed=False):
    """AutoRound/GPTQ (auto_round:auto_gptq, symmetric, g128) -> (q int8 [N, K] in -8..7, scale f32
    [N, K/128]). qweight int32 [K/8, N] (checkpoint) or [N, K/8] (``transposed``: what ``r4tune
    quant gptq`` writes); nibble j of word kw is k = 8*kw + j, code c means c - 8; scales f16
    [K/128, N]; qzeros int32 [K/128, N/8], all 0x77777777, else ValueError with the count (seed
    002's symmetry assertion, quant/gptq.cpp's message)."""
    qn, sn, zn = names
    qw = np.asarray(qweight)
    sc = np.asarray(scales)
    if qw.ndim != 2 or sc.ndim != 2 or qw.dtype.itemsize != 4:
        raise ValueError(f"'{qn}': want qweight I32 2-D and scales F16 2-D; got {qw.dtype} {qw.shape}, "
                         f"{sc.dtype} {sc.shape}")
    if sc.dtype != np.float16:
        raise ValueError(f"'{sn}': want F16 scales, got {sc.dtype}")
    w = qw.view(np.uint32)
    if not transposed:
        w = w.T
    N, K = w.shape[0], w.shape[1] * 8
    if sc.shape[1] != N:
        raise ValueError(f"'{qn}': shapes disagree: qweight {list(qw.shape)} means N = {N}, K = {K}; "
                         f"scales {list(sc.shape)} must be [K/128, N]")
    if sc.shape[0] * GROUP != K:
        raise ValueError(f"'{sn}': group size {K / max(sc.shape[0], 1):g} (K = {K}, {sc.shape[0]} "
                         f"groups); only 128 is supported")
    if N % 16:
        raise ValueError(f"'{qn}': N = {N} is not a multiple of 16")
    if qzeros is not None:
        z = np.asarray(qzeros)
        if z.shape != (K // GROUP, N // 8):
            raise ValueError(f"'{zn}': want [K/128, N/8] = [{K // GROUP}, {N // 8}], got {list(z.shape)}")
        bad = int((z.view(np.uint32) != 0x77777777).sum())
        if bad:
            raise ValueError(f"'{zn}': AutoRound checkpoint is not symmetric: {bad} of {z.size} qzeros "
                             "words differ from 0x77777777 (zero != 8)")
    _finite(sn, sc)
    shifts = (4 * np.arange(8, dtype=np.uint32))
    codes = ((w[:, :, None] >> shifts) & 0xF).reshape(N, K).astype(np.int8)
    q = codes - np.int8(8)
    scale = sc.astype(np.float32).T.copy()  # f16 values, exact in f32
    return q, scale


# e4m3fn decode table (bias 7, 0x7F / 0xFF NaN), as tests/quant/fixtures/make_fixtures.py.
def _e4m3_table():
    b = np.arange(256, dtype=np.int64)
    s = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> 3) & 0xF, b & 0x7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1.0 + m / 8.0) * 2.0 ** (e - 7.0))
    v = np.where((e == 15) & (m == 7), np.nan, v)
    return (s * v).astype(np.float32)


_E4M3 = _e4m3_table()


def unpack_e2m1(packed):
    """[N, K/2] uint8 -> [N, K] f32, low nibble the even k (seed 003)."""
    packed = torch.as_tensor(np.asarray(packed)).to(torch.int64)
    n = packed.shape[0]
    codes = torch.stack((packed & 0xF, packed >> 4), dim=-1).reshape(n, -1)
    mag = torch.tensor(_E2M1)[codes & 7]
    return torch.where((codes & 8) != 0, -mag, mag)


def dequant_nvfp4(packed, scale_e4m3_bytes, global_divisor):
    """Seed 003 dequant_nvfp4: e2m1 * f32(e4m3 scale per 16) / global_divisor."""
    v = unpack_e2m1(packed)
    n, k = v.shape
    s = torch.from_numpy(_E4M3[np.asarray(scale_e4m3_bytes, dtype=np.uint8)]) / float(global_divisor)
    return (v.reshape(n, k // 16, 16) * s.unsqueeze(-1)).reshape(n, k)


def _e2m1_index(a):
    a = a.clamp(max=6.0)
    lo = torch.round(a * 2.0)
    mid = torch.round(a) + 2.0
    hi = torch.round(a * 0.5) + 4.0
    return torch.where(a < 2.0, lo, torch.where(a < 4.0, mid, hi)).to(torch.uint8)


def _block_exponent(amax, mode):
    safe = amax.clamp(min=torch.finfo(torch.float32).tiny)
    if mode == "ocp":
        e = torch.floor(torch.log2(safe)) - 2.0
    else:
        e = torch.ceil(torch.log2(safe / 6.0))
    e = torch.where(amax > 0, e, torch.zeros_like(e))
    return e.clamp(-127.0, 127.0)


def _encode_blocks(wb, e):
    scale = torch.exp2(e).unsqueeze(-1)
    v = wb / scale
    idx = _e2m1_index(v.abs())
    q = torch.tensor(_E2M1)[idx.long()] * torch.sign(v) * scale
    return idx, ((q - wb) ** 2).sum(-1)


def quant_mxfp4(w, mode="mse"):
    """Seed 003 quant_mxfp4 (f32 [N, K] -> packed e2m1 [N, K/2] uint8, e8m0 [N, K/32] uint8, squared
    error), the function quant/mxfp4.cpp ports; CPU float32, the seed's operation order."""
    w = torch.as_tensor(w).float().cpu()
    n, k = w.shape
    if k % MX_BLOCK:
        raise ValueError(f"MXFP4: K = {k} is not a multiple of 32")
    wb = w.reshape(n, k // 32, 32)
    amax = wb.abs().amax(-1)
    if mode == "mse":
        e0 = _block_exponent(amax, "noclip")
        i0, r0 = _encode_blocks(wb, e0)
        e1 = e0 - 1.0
        i1, r1 = _encode_blocks(wb, e1)
        take1 = r1 < r0
        e = torch.where(take1, e1, e0)
        idx = torch.where(take1.unsqueeze(-1), i1, i0)
        err = torch.where(take1, r1, r0)
    elif mode in ("ocp", "noclip"):
        e = _block_exponent(amax, mode)
        idx, err = _encode_blocks(wb, e)
    else:
        raise ValueError(f"MXFP4 exponent rule must be mse, ocp or noclip, not '{mode}'")
    sign = (torch.signbit(wb) & (idx != 0)).to(torch.uint8) << 3
    code = (idx | sign).reshape(n, k)
    packed = (code[:, 0::2] | (code[:, 1::2] << 4)).contiguous()
    e8m0 = (e + 127.0).to(torch.uint8).contiguous()
    return packed.numpy(), e8m0.numpy(), err.sum()


def nvfp4_to_mxfp4(packed, scale_e4m3_bytes, global_scales, mode="mse", name="weight"):
    """What ``r4tune quant mxfp4`` does with an NVFP4 triple: N split into as many equal partitions
    as there are global scales, each dequantised with its divisor, then quant_mxfp4."""
    packed = np.asarray(packed, dtype=np.uint8)
    gs = np.asarray(global_scales, dtype=np.float32).reshape(-1)
    n, k = packed.shape[0], packed.shape[1] * 2
    sc = np.asarray(scale_e4m3_bytes, dtype=np.uint8)
    if sc.shape != (n, k // 16) or k % 32:
        raise ValueError(f"'{name}': K = {k} must be a multiple of 32 with scales [N, K/16], got "
                         f"scales {list(sc.shape)}")
    if n % len(gs):
        raise ValueError(f"'{name}': {len(gs)} global scales do not split N = {n} evenly")
    _finite(name + "_global_scale", gs)
    if np.isnan(_E4M3[sc]).any():
        raise ValueError(f"'{name}_scale': NaN e4m3 scales")
    part = n // len(gs)
    ps, es = [], []
    for i, g in enumerate(gs):
        w = dequant_nvfp4(packed[i * part:(i + 1) * part], sc[i * part:(i + 1) * part], float(g))
        p, e, _ = quant_mxfp4(w, mode)
        ps.append(p)
        es.append(e)
    return np.concatenate(ps), np.concatenate(es)


def _nibbles(packed):
    """[N, K/2] uint8 -> [N, K] uint8 codes, low nibble the even k."""
    p = np.asarray(packed, dtype=np.uint8)
    return np.stack((p & 0xF, p >> 4), axis=-1).reshape(p.shape[0], -1)


# ---- modules -----------------------------------------------------------------------------------
def _first(rd, cands):
    for c in cands:
        if c in rd:
            return c
    return None


class _R4Linear(torch.nn.Module):
    OP = None

    def __init__(self, wq, wsz, N, K, bias=None):
        super().__init__()
        N, K = int(N), int(K)
        wq = torch.as_tensor(np.asarray(wq).view(np.int32)) if not isinstance(wq, torch.Tensor) else wq
        wsz = torch.as_tensor(np.asarray(wsz).view(np.int32)) if not isinstance(wsz, torch.Tensor) else wsz
        if N % 16:
            raise ValueError(f"{type(self).__name__}: shape: N = {N} is not a multiple of 16")
        kmul = GROUP if FORMATS[self.OP][1] == "sm80" else 64
        if K % kmul:
            raise ValueError(f"{type(self).__name__}: shape: K = {K} is not a multiple of {kmul}")
        if wq.numel() != N * K // 8 or wsz.numel() != N * K // 128:
            raise ValueError(f"{type(self).__name__}: shape: wq/wsz have {wq.numel()}/{wsz.numel()} "
                             f"words, want {N * K // 8}/{N * K // 128} for N = {N}, K = {K}")
        self.in_features, self.out_features = K, N
        self.register_buffer("wq", wq.reshape(-1).to(torch.int32).contiguous())
        self.register_buffer("wsz", wsz.reshape(-1).to(torch.int32).contiguous())
        self.register_buffer("bias", None if bias is None else torch.as_tensor(bias).to(torch.bfloat16))

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, op=r4d::{self.OP}"

    def forward(self, x):
        y = getattr(torch.ops.r4d, self.OP)(x, self.wq, self.wsz, self.out_features)
        return y if self.bias is None else y + self.bias

    def dequantized(self):
        """f32 [N, K] weights this module holds (unpacked from wq / wsz)."""
        return dequantize_packed(FORMATS[self.OP][1], self.wq, self.wsz, self.out_features,
                                 self.in_features)

    def prepare_dense(self):
        """Dequantise now (outside any capture) for the dense path of large M."""
        return _dense_weight(self.OP, self.wq, self.wsz, self.out_features, self.in_features)

    def _apply(self, fn, *args, **kwargs):
        _drop_dense(self.wq, self.wsz)
        return super()._apply(fn, *args, **kwargs)

    def __del__(self):
        try:
            _drop_dense(self.wq, self.wsz)
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


def _pack_int4(q, scale, who):
    q = np.ascontiguousarray(q, dtype=np.int8)
    scale = np.ascontiguousarray(scale, dtype=np.float32)
    N, K = q.shape
    if N % 16:
        raise ValueError(f"{who}: shape: N = {N} is not a multiple of 16")
    if K % GROUP or scale.shape != (N, K // GROUP):
        raise ValueError(f"{who}: shape: K = {K} with scales {list(scale.shape)}: group size must be "
                         f"128 (K % 128 == 0, scales [N, K/128])")
    wq, wsz = _need("pack")(q, scale, layout="sm80")
    return np.asarray(wq).view(np.int32), np.asarray(wsz).view(np.int32), N, K


class _Int4Linear(_R4Linear):
    @classmethod
    def from_int4(cls, q, scale, bias=None):
        """q int8 [N, K] in -8..7, scale f32 [N, K/128] (w = q * f16(scale))."""
        wq, wsz, N, K = _pack_int4(q, scale, cls.__name__)
        return cls(wq, wsz, N, K, bias)

    @classmethod
    def from_float(cls, W, bias=None, clip_steps=20):
        """Quantise with r4d.quantize (seed 000's clip search) and pack."""
        W = torch.as_tensor(W).detach().float().cpu().numpy()
        _finite("W", W)
        q, s = _need("quantize")(W, group=GROUP, clip_steps=clip_steps)
        return cls.from_int4(q, s, bias)

    @classmethod
    def from_safetensors(cls, path, prefix):
        """``prefix`` names a tensor T or a module X (then T = X.weight). Accepted, in this order:
        ``r4tune quant int4`` output (``T.q`` I8 [N, K], ``T.scale`` F32 [N, K/128]; ``T.wq`` /
        ``T.wsz`` when present must be the sm80 packing of them, else the file was written with
        another --layout); ``r4tune quant gptq`` output (``X.qweight`` [N, K/8], ``X.scales``);
        an AutoRound/GPTQ checkpoint (``X.qweight`` [K/8, N], ``X.scales``, ``X.qzeros``, symmetry
        checked; a non-trivial ``X.g_idx`` is refused). ``X.bias`` is used when present."""
        rd = path if isinstance(path, SafetensorsReader) else SafetensorsReader(path)
        who = f"{cls.__name__}.from_safetensors({rd.path!r}, {prefix!r})"
        bias = _first(rd, [prefix + ".bias", prefix[:-len(".weight")] + ".bias"]
                      if prefix.endswith(".weight") else [prefix + ".bias"])
        bias = None if bias is None else _bias(rd, bias)
        for t in (prefix, prefix + ".weight"):
            if t + ".q" in rd and t + ".scale" in rd:
                q, s = rd.get(t + ".q"), rd.get(t + ".scale")
                if rd.dtype(t + ".q") != "I8" or rd.dtype(t + ".scale") != "F32" or q.ndim != 2:
                    raise ValueError(f"{who}: '{t}.q' / '{t}.scale' must be I8 [N, K] / F32 [N, K/128]")
                if s.shape[0] != q.shape[0] or s.shape[1] * GROUP != q.shape[1]:
                    raise ValueError(f"{who}: '{t}.scale' {list(s.shape)}: group size must be 128 for "
                                     f"'{t}.q' {list(q.shape)}")
                _finite(t + ".scale", s)
                if q.min(initial=0) < -8 or q.max(initial=0) > 7:
                    raise ValueError(f"{who}: '{t}.q' holds values outside -8..7")
                wq, wsz, N, K = _pack_int4(q, s, who)
                if t + ".wq" in rd:
                    fw, fz = rd.get(t + ".wq").reshape(-1), rd.get(t + ".wsz").reshape(-1) \
                        if t + ".wsz" in rd else None
                    if (fz is None or fw.size != wq.size or not np.array_equal(fw.view(np.int32), wq)
                            or not np.array_equal(fz.view(np.int32), wsz)):
                        raise ValueError(f"{who}: '{t}.wq' / '{t}.wsz' are not the sm80 packing of "
                                         f"'{t}.q' (written with --layout gfx12 or gfx942?); "
                                         "re-run r4tune quant int4 --layout sm80")
                return cls(wq, wsz, N, K, bias)
        x = prefix[:-len(".weight")] if prefix.endswith(".weight") else prefix
        if x + ".qweight" in rd and x + ".scales" in rd:
            if x + ".g_idx" in rd:
                g = rd.get(x + ".g_idx").reshape(-1)
                if not np.array_equal(g, np.arange(g.size) // GROUP):
                    raise ValueError(f"{who}: '{x}.g_idx' is not contiguous groups of 128 (desc_act "
                                     "checkpoints are not supported)")
            qz = rd.get(x + ".qzeros") if x + ".qzeros" in rd else None
            if rd.dtype(x + ".qweight") not in ("I32", "U32"):
                raise ValueError(f"{who}: '{x}.qweight' must be I32, got {rd.dtype(x + '.qweight')}")
            qw, sc = rd.get(x + ".qweight"), rd.get(x + ".scales")
            transposed = qz is None and qw.ndim == 2 and sc.ndim == 2 and qw.shape[0] == sc.shape[1]
            q, s = gptq_to_int4(qw, sc, qz, (x + ".qweight", x + ".scales", x + ".qzeros"), transposed)
            return cls.from_int4(q, s, bias)
        raise ValueError(f"{who}: no int4 tensors: want '{prefix}.q' + '.scale' (r4tune quant int4), "
                         f"or '{x}.qweight' + '.scales' (GPTQ/AutoRound)")


def _bias(rd, name):
    a = rd.get(name)
    if rd.dtype(name) == "BF16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    _finite(name, a)
    return torch.from_numpy(a.astype(np.float32))


class W4A16Linear(_Int4Linear):
    """int4 g128 weights x bf16 activations: ``torch.ops.r4d.linear_w4a16``."""
    OP = "linear_w4a16"


class W4A8Fp8Linear(_Int4Linear):
    """int4 g128 weights (GPTQ/AutoRound symmetric or r4tune's int4) x e4m3 activations with a
    per-row scale: ``torch.ops.r4d.linear_w4a8fp8``. Needs sm_89+ for the kernel path."""
    OP = "linear_w4a8fp8"


class MXFP4Linear(_R4Linear):
    """e2m1 weights with an e8m0 exponent per 32 K x e4m3 activations:
    ``torch.ops.r4d.linear_mxfp4a8fp8``. Needs sm_89+ for the kernel path."""
    OP = "linear_mxfp4a8fp8"

    @classmethod
    def from_mxfp4(cls, packed, e8m0, bias=None, name="weight"):
        """packed e2m1 [N, K/2] uint8 (low nibble the even k), e8m0 [N, K/32] uint8."""
        p = np.ascontiguousarray(packed, dtype=np.uint8)
        e = np.ascontiguousarray(e8m0, dtype=np.uint8)
        N, K = p.shape[0], p.shape[1] * 2
        if e.shape[0] != N or e.shape[1] * MX_BLOCK != K:
            raise ValueError(f"{cls.__name__}: shape: '{name}_scale' {list(e.shape)} must be [N, K/32] "
                             f"for '{name}' {list(p.shape)} (K = {K} must be a multiple of 32)")
        if N % 16 or K % 64:
            raise ValueError(f"{cls.__name__}: shape: '{name}' N = {N} must be a multiple of 16 and "
                             f"K = {K} of 64 (layout mx_sm89)")
        if (e == 255).any():
            r, b = np.argwhere(e == 255)[0]
            raise ValueError(f"'{name}_scale': e8m0 255 (NaN) at row {r}, 32-K block {b}")
        wq, wsz = _need("pack_mx")(_nibbles(p), e)
        return cls(np.asarray(wq).view(np.int32), np.asarray(wsz).view(np.int32), N, K, bias)

    @classmethod
    def from_float(cls, W, bias=None, mode="mse"):
        W = torch.as_tensor(W).detach().float().cpu()
        _finite("W", W.numpy())
        p, e, _ = quant_mxfp4(W, mode)
        return cls.from_mxfp4(p, e, bias)

    @classmethod
    def from_safetensors(cls, path, prefix, mode="mse"):
        """``prefix`` names a module X or a tensor T. Accepted: ``r4tune quant mxfp4`` output and
        MXFP4 checkpoints (``X.weight`` U8 [N, K/2] + ``X.weight_scale`` U8 e8m0 [N, K/32]; or
        ``T`` + ``T_scale``); an NVFP4 checkpoint (``X.weight_packed`` U8 [N, K/2],
        ``X.weight_scale`` F8_E4M3 [N, K/16], ``X.weight_global_scale`` F32, a divisor per
        partition), requantised exactly as the CLI does (exponent rule ``mode``)."""
        rd = path if isinstance(path, SafetensorsReader) else SafetensorsReader(path)
        who = f"{cls.__name__}.from_safetensors({rd.path!r}, {prefix!r})"
        x = prefix[:-len(".weight")] if prefix.endswith(".weight") else prefix
        bias = _bias(rd, x + ".bias") if x + ".bias" in rd else None
        if x + ".weight_packed" in rd:
            for s in (".weight_scale", ".weight_global_scale"):
                if x + s not in rd:
                    raise ValueError(f"{who}: '{x}.weight_packed' has no '{x}{s}'")
            if rd.dtype(x + ".weight_scale") not in ("F8_E4M3", "U8"):
                raise ValueError(f"{who}: '{x}.weight_scale' must be F8_E4M3 for NVFP4")
            p, e = nvfp4_to_mxfp4(rd.get(x + ".weight_packed"), rd.get(x + ".weight_scale"),
                                  rd.get(x + ".weight_global_scale"), mode, x + ".weight")
            return cls.from_mxfp4(p, e, bias, x + ".weight")
        for t in (x + ".weight", prefix):
            if t in rd and t + "_scale" in rd:
                if rd.dtype(t) != "U8" or rd.dtype(t + "_scale") != "U8":
                    raise ValueError(f"{who}: '{t}' / '{t}_scale' must be U8 (e2m1 pairs / e8m0), got "
                                     f"{rd.dtype(t)} / {rd.dtype(t + '_scale')}")
                return cls.from_mxfp4(rd.get(t), rd.get(t + "_scale"), bias, t)
        raise ValueError(f"{who}: no MXFP4 tensors: want '{x}.weight' + '{x}.weight_scale' (r4tune "
                         f"quant mxfp4) or an NVFP4 '{x}.weight_packed' triple")
