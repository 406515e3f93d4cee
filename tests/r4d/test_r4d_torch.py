"""Drive r4d from Python with torch tensors the way seeds/000 does, on a GPU.

For the six seed shapes and M = 1..64: quantise a Gaussian weight (r4d.quantize, or the seed's own
torch quantiser while the quant library is not in the build), pack it with r4d.pack (sm80),
ask r4d.select for the kernels, and run the seed's _run on torch.cuda.current_stream(): above
r4d.A8_M rows with a w4a8 config, quant_act + gemm_w4a8_nt on bf16 activations, otherwise
gemm_w4a16_nt on f16 activations; then the automatic r4d.gemm on bf16 activations. Each output is
compared with the dequantised reference. Finally one torch.cuda.graph capture of r4d.gemm over
every shape at M = 8 and 64 is replayed and compared, and a chain of r4d.gemm calls (each reading
the previous output) captured with and without programmatic dependent launch must give
bit-identical outputs at every link.

Tolerance (relative Frobenius error of the bf16 output against an f32 reference that uses the
same rounded activations and dequantised weights): bf16 output rounding is <= 2^-9 relative per
element and f16/f32 operand rounding and summation order add far less, so 1e-2 leaves a wide
margin while a wrong scale, k-permutation or band (errors of O(1)) cannot pass. The int8 path's
reference quantises the activations exactly as quant_act does (amax/127, round half to even).

Runs under pytest or as `python3 test_r4d_torch.py`; skips cleanly without torch, a GPU or r4d.
Set R4D_PYTHON_PATH to the folder holding the built module.
"""
import os
import sys
import time

SHAPES = [(3072, 5120), (5120, 2048), (17408, 5120), (5120, 8704), (1280, 5120), (256, 5120)]
TOL = 1e-2
BALANCED_SK = 255  # kernels/config.hpp kSm90aBalanced: the sm90a generation's balanced grid


def _skip(why):
    if "pytest" in sys.modules:
        import pytest
        pytest.skip(why, allow_module_level=True)
    print("SKIP:", why)
    sys.exit(0)


try:
    import torch
except Exception as e:  # noqa: BLE001 - any import failure means "no torch here"
    _skip(f"torch not importable: {e!r}")
if not torch.cuda.is_available():
    _skip("no CUDA device")
if os.environ.get("R4D_PYTHON_PATH"):
    sys.path.insert(0, os.environ["R4D_PYTHON_PATH"])
try:
    import r4d
except Exception as e:  # noqa: BLE001
    _skip(f"r4d module not importable: {e!r}")
import numpy as np

GROUP = 128


# ---- the seed's quantiser (seeds/000 _grid / quantize / dequantize), used while r4d.quantize is
# ---- not in the build
def _grid(w, amax):
    scale = (amax / 7.0).clamp_min(1e-12)
    s16 = scale.to(torch.float16).float()
    q = torch.round(w / s16[..., None]).clamp(-8, 7)
    err = q * s16[..., None] - w
    return q.to(torch.int8), scale, (err * err).sum(-1)


def seed_quantize(W, group=GROUP, clip_steps=20):
    N, K = W.shape
    w = W.float().reshape(N, K // group, group)
    amax = w.abs().amax(-1)
    best = _grid(w, amax)
    for i in range(1, max(clip_steps, 1)):
        cand = _grid(w, amax * (1.0 - 0.5 * i / clip_steps))
        take = cand[2] < best[2]
        best = (torch.where(take[..., None], cand[0].to(torch.int16), best[0].to(torch.int16)).to(torch.int8),
                torch.where(take, cand[1], best[1]), torch.where(take, cand[2], best[2]))
    return best[0].reshape(N, K), best[1]


def dequantize(q, scale, group=GROUP):
    N, K = q.shape
    s16 = scale.to(torch.float16).float()
    return (q.reshape(N, K // group, group).float() * s16[..., None]).reshape(N, K)


QUANTISER = []  # which quantiser ran, printed with the results


def quantize(W):
    try:
        q, s = r4d.quantize(W.cpu().numpy(), group=GROUP, clip_steps=20)
        QUANTISER.append("r4d.quantize")
        return torch.from_numpy(q).to(W.device), torch.from_numpy(s).to(W.device)
    except NotImplementedError:
        QUANTISER.append("seed torch quantiser")
        return seed_quantize(W)


def pack(q, scale):
    wq, wsz = r4d.pack(q.cpu().numpy(), scale.cpu().numpy().astype(np.float32), layout="sm80")
    dev = q.device
    return (torch.from_numpy(wq.view(np.int32)).to(dev), torch.from_numpy(wsz.view(np.int32)).to(dev))


def sm90a_natural(q):
    """q[M, K] written in ActOrder::sm90a, back in the natural order. Within each 64-K block of a row
    the dword 4t + c moves to 4c + t, and the rows are interleaved chunk-major: chunk j (16 bytes)
    of row n's 128-K group g lies at byte 16 (M (8 g + j) + n) (kernels/nv/wgmma_layout_sm90a.h
    act_offset_8)."""
    M, K = q.shape
    k = torch.arange(K)
    d = (k // 4) % 32
    p = 4 * ((d & ~15) | ((d & 3) << 2) | ((d >> 2) & 3)) + (k & 3)  # within the group's 128 bytes
    n = torch.arange(M)[:, None]
    off = ((k // 128) * 8 + p // 16)[None, :] * (16 * M) + 16 * n + (p % 16)[None, :]
    return q.reshape(-1)[off.to(q.device)]


def quant_act_ref(a_bf16):
    """quant_act's contract in torch, operation for operation. The divisions are tensor / tensor on
    purpose: torch evaluates `127.0 / t` as reciprocal(t) * 127 and `t / 127.0` (CPU scalar
    divisor, CUDA) as t * (1/127), each a second rounding that the kernel does not make (seen on
    the H200, 2026-11-30: 3072x5120, M=34 differed by one code)."""
    a = a_bf16.float()
    amax = a.abs().amax(-1)
    c127 = torch.full_like(amax, 127.0)
    inv = torch.where(amax > 0, c127 / amax, torch.zeros_like(amax))
    q = torch.round(a * inv[:, None]).clamp(-127, 127)
    return q, amax / c127


def rel_err(c, ref):
    return float((c.float() - ref).norm() / ref.norm().clamp_min(1e-30))


class Layer:
    """One converted linear, as the seed's _W4LinearMethod holds it."""

    def __init__(self, N, K, gen):
        self.N, self.K = N, K
        W = torch.randn(N, K, device="cuda", generator=gen) * 0.02
        q, scale = quantize(W)
        self.wq, self.wsz = pack(q, scale)
        self.wdq = dequantize(q, scale)  # f32 [N, K]

    def run_seed_way(self, x):
        """seeds/000 _W4LinearMethod._run through the explicit callables."""
        m = x.shape[0]
        st = torch.cuda.current_stream().cuda_stream
        c = torch.empty((m, self.N), device="cuda", dtype=torch.bfloat16)
        if m > r4d.A8_M:
            cfg = r4d.config_for(self.N, self.K, m, "w4a8")
            if cfg is not None:
                a = x.to(torch.bfloat16).contiguous()
                q = torch.empty((m, self.K), device="cuda", dtype=torch.int8)
                sc = torch.empty(m, device="cuda", dtype=torch.float32)
                # q in the order the config's GEMM reads (r4d.act_order: the sm90a generation's
                # permutes within rows and interleaves them, sm90a_natural).
                order = r4d.act_order(tuple(cfg))
                getattr(r4d, r4d.select("quant_act", K=self.K, dtype="bf16"))(
                    a.data_ptr(), q.data_ptr(), sc.data_ptr(), m, self.K, st, order=order)
                getattr(r4d, r4d.select("gemm_nt", M=m, K=self.K, N=self.N, dtype="w4a8"))(
                    q.data_ptr(), sc.data_ptr(), self.wq.data_ptr(), self.wsz.data_ptr(), c.data_ptr(),
                    m, self.K, self.N, *cfg, st)
                qr, sr = quant_act_ref(a)
                if order == "sm90a":  # compare in the natural order
                    q = sm90a_natural(q)
                return c, (qr * sr[:, None]) @ self.wdq.T, "w4a8", (q, sc, qr, sr)
        cfg = r4d.config_for(self.N, self.K, m)
        assert cfg is not None, (self.N, self.K, m)
        a = x.to(torch.float16).contiguous()
        getattr(r4d, r4d.select("gemm_nt", M=m, K=self.K, N=self.N, dtype="w4a16"))(
            a.data_ptr(), self.wq.data_ptr(), self.wsz.data_ptr(), c.data_ptr(), m, self.K, self.N, *cfg, st)
        return c, a.float() @ self.wdq.T, "w4a16", None

    def uses_a8(self, m):
        """Whether r4d.gemm takes w4a8 at m rows: above A8_M, where its table has the shape."""
        return m > r4d.A8_M and r4d.config_for(self.N, self.K, m, "w4a8") is not None

    def auto_config(self, m):
        """The config r4d.gemm launches at m rows."""
        return r4d.config_for(self.N, self.K, m, "w4a8" if self.uses_a8(m) else "w4a16")

    def ref_auto(self, a_bf16):
        m = a_bf16.shape[0]
        if self.uses_a8(m):
            qr, sr = quant_act_ref(a_bf16)
            return (qr * sr[:, None]) @ self.wdq.T
        return a_bf16.float() @ self.wdq.T


def test_r4d_torch():
    t0 = time.time()
    assert r4d.select("gemm_nt", M=64, K=5120, N=5120, dtype="w4a16") == "gemm_w4a16_nt"
    assert int(r4d.GEMM_W4_GROUP) == GROUP and int(r4d.GEMM_W4A8_GROUP) == GROUP
    assert int(r4d.GEMM_W4_MAX_M) == 64
    print("r4d tables:", r4d.table_info(), "A8_M", r4d.A8_M)
    r4d.reset_stats()
    gen = torch.Generator(device="cuda").manual_seed(0)
    layers = [Layer(N, K, gen) for N, K in SHAPES]
    worst = {}
    checked = 0
    for L in layers:
        for m in range(1, 65):
            x = torch.randn(m, L.K, device="cuda", generator=gen)
            c, ref, path, qa = L.run_seed_way(x)
            torch.cuda.synchronize()
            e = rel_err(c, ref)
            assert e < TOL, (L.N, L.K, m, path, e)
            if qa is not None:  # quant_act bit for bit against the torch emulation
                q, sc, qr, sr = qa
                nq = int((q.float() != qr).sum())
                assert nq == 0, (L.N, L.K, m, nq, "int8 codes differ")
                assert torch.equal(sc, sr), (L.N, L.K, m, float((sc - sr).abs().max()))
            worst[path] = max(worst.get(path, 0.0), e)
            a = x.to(torch.bfloat16).contiguous()
            c2 = torch.empty((m, L.N), device="cuda", dtype=torch.bfloat16)
            r4d.gemm(a.data_ptr(), L.wq.data_ptr(), L.wsz.data_ptr(), c2.data_ptr(), m, L.K, L.N,
                     torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            e2 = rel_err(c2, L.ref_auto(a))
            assert e2 < TOL, (L.N, L.K, m, "gemm", e2)
            worst["gemm"] = max(worst.get("gemm", 0.0), e2)
            checked += 2
    s = r4d.stats()
    print(f"eager: {checked} launches checked over {len(SHAPES)} shapes x M=1..64; worst rel err {worst}; "
          f"stats {s}")
    assert s["unknown_shape"] == 0 and s["refused"] == 0

    # One capture of r4d.gemm for every shape at M = 8 and 64, replayed twice.
    bufs = []
    for L in layers:
        for m in (8, 64):
            a = torch.randn(m, L.K, device="cuda", generator=gen).to(torch.bfloat16)
            c = torch.full((m, L.N), float("nan"), device="cuda", dtype=torch.bfloat16)
            bufs.append((L, m, a, c))
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        st = torch.cuda.current_stream().cuda_stream
        for L, m, a, c in bufs:
            r4d.gemm(a.data_ptr(), L.wq.data_ptr(), L.wsz.data_ptr(), c.data_ptr(), m, L.K, L.N, st)
    for replay in range(2):
        for _, _, _, c in bufs:
            c.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        for L, m, a, c in bufs:
            e = rel_err(c, L.ref_auto(a))
            assert e < TOL, ("graph", replay, L.N, L.K, m, e)
    print(f"graph: {len(bufs)} captured r4d.gemm launches replayed twice, all within {TOL}")

    # A chain of r4d.gemm calls, each reading the previous call's output (as [M, K] row-major, the
    # first M*K elements of the previous [M, N]: the shapes are taken in order where K <= the
    # previous N), captured once with pdl=False and once with PDL (pdl=True where
    # r4d.pdl_supported(), else the default); every link bit-identical between the two replays,
    # and within TOL of its reference.
    pdl = r4d.pdl_supported(torch.cuda.current_device())
    chain = [layers[0]]
    rest = layers[1:]
    while rest:
        nxt = next((L for L in rest if L.K <= chain[-1].N), None)
        if nxt is None:
            break
        chain.append(nxt)
        rest.remove(nxt)
    r4d.reset_stats()
    for m in (8, 64):
        x = torch.randn(m, chain[0].K, device="cuda", generator=gen).to(torch.bfloat16)
        outs = {flag: [torch.full((m, L.N), float("nan"), device="cuda", dtype=torch.bfloat16)
                       for L in chain] for flag in (False, True)}
        graphs = {}
        for flag in (False, True):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                st = torch.cuda.current_stream().cuda_stream
                a = x
                for L, c in zip(chain, outs[flag]):
                    r4d.gemm(a.data_ptr(), L.wq.data_ptr(), L.wsz.data_ptr(), c.data_ptr(), m, L.K,
                             L.N, st, pdl=(True if pdl else None) if flag else False)
                    a = c
            graphs[flag] = g
        for flag in (False, True):
            graphs[flag].replay()
        torch.cuda.synchronize()
        a = x
        for i, L in enumerate(chain):
            plain, with_pdl = outs[False][i], outs[True][i]
            assert torch.equal(plain.view(torch.int16), with_pdl.view(torch.int16)), (
                "PDL chain differs", m, i, L.N, L.K)
            e = rel_err(plain, L.ref_auto(a.reshape(-1)[: m * L.K].view(m, L.K)))
            assert e < TOL, ("chain", m, i, L.N, L.K, e)
            a = plain
    s = r4d.stats()
    print(f"chain: {len(chain)} links at M = 8, 64 captured with and without PDL (device has PDL: "
          f"{pdl}; {s['pdl_launches']} of {s['launches']} launches with PDL), bit-identical; "
          f"{time.time() - t0:.1f}s total")
    # A balanced sm90a grid (SK 255) launches plainly in the PDL capture too (kernels/config.hpp
    # pdl_allowed, asked by r4d's prepare()): one plain GEMM per balanced link and M. Session 41's
    # H100 run of the session 39 tables (gate_up w4a8 M 1..16 balanced) counted 19 of 20.
    plain = sum(1 for m in (8, 64) for L in chain
                if (c := L.auto_config(m))[0] == "sm90a" and c[2] == BALANCED_SK)
    assert s["pdl_launches"] == (s["launches"] // 2 - plain if pdl else 0), (s, plain)


if __name__ == "__main__":
    test_r4d_torch()
    print("quantiser:", sorted(set(QUANTISER)))
    print("PASS")
