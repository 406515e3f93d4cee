"""Diagnosis of the r4d_torch fp8 ops' error against the dequantised reference (session 7): the op's
output against (a) the test's e4m3 emulation x / s and (b) r4d.quant_act_fp8's own e4m3 bytes and
scales, per format, shape and M. Needs R4D_PYTHON_PATH; prints one line per case."""
import os
import sys

import torch

sys.path.insert(0, os.environ["R4D_PYTHON_PATH"])
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "r4d", "python"))
import r4d  # noqa: E402
import r4d_torch as rt  # noqa: E402


def rel(y, ref):
    return float((y.float() - ref).norm() / ref.norm())


def emu(x):
    a = x.float()
    s = a.abs().amax(-1, keepdim=True) / 448.0
    return (a / s).clamp(-448, 448).to(torch.float8_e4m3fn).float() * s


gen = torch.Generator().manual_seed(0)
for fmt in ("w4a8fp8", "mxfp4"):
    for N, K in ((17408, 5120), (256, 5120), (5120, 2048)):
        W = torch.randn(N, K, generator=gen) * 0.02
        if fmt == "mxfp4":
            p, e, _ = rt.quant_mxfp4(W)
            m = rt.MXFP4Linear.from_mxfp4(p, e).cuda()
        else:
            q, s = r4d.quantize(W.numpy(), group=128, clip_steps=20)
            m = rt.W4A8Fp8Linear.from_int4(q, s).cuda()
        wref = m.dequantized().float()
        for M in (1, 16, 64):
            x = torch.randn(M, K, generator=gen).to(torch.bfloat16).cuda()
            y = m(x)
            qb = torch.empty((M, K), dtype=torch.uint8, device="cuda")
            sc = torch.empty((M,), dtype=torch.float32, device="cuda")
            r4d.quant_act_fp8(x.data_ptr(), qb.data_ptr(), sc.data_ptr(), M, K,
                              torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            xk = qb.view(torch.float8_e4m3fn).float() * sc[:, None]
            xe = emu(x)
            print(f"{fmt} N={N} K={K} M={M} path={rt.path_for(m.OP, N, K, M)} "
                  f"cfg={r4d.config_for(N, K, M, dtype='w4a8fp8' if fmt != 'mxfp4' else 'mxfp4a8fp8')} "
                  f"vs emu {rel(y, xe @ wref.T):.2e} vs quant_act_fp8 {rel(y, xk @ wref.T):.2e} "
                  f"emu vs qa8 acts {rel(xe, xk):.2e} bf16-x {rel(y, x.float() @ wref.T):.2e}")
