"""Second diagnosis of the r4d_torch fp8 ops test's tolerance failure (session 8): the test's own
loop (same generator, shapes, leads and reference), and per case also
  e_again: the op run again on the same x after torch.cuda.synchronize() (a race would differ),
  e_own:   the op against the reference built from r4d.quant_act_fp8's own bytes and scales,
  codes:   how many e4m3 codes of quant_act_fp8 differ from the test's emulation (x / s), and in
           how many rows.
  e_cpu:   (M <= 3) the op against the same reference computed on the CPU in float64.
Prints a line per case whose error is above 3e-3. Needs R4D_PYTHON_PATH. DIAG_PDL=0 launches the
r4d kernels of the ops without programmatic dependent launch."""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ["R4D_PYTHON_PATH"])
sys.path.insert(0, os.path.join(HERE, "..", "..", "kernels", "r4d", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "r4d"))
import r4d  # noqa: E402
import r4d_torch as rt  # noqa: E402
import test_r4d_torch_ops as T  # noqa: E402

if os.environ.get("DIAG_PDL") == "0":
    _need = rt._need

    def _no_pdl(name):
        fn = _need(name)
        return (lambda *a, **k: fn(*a, pdl=False, **k)) if name.startswith(("gemm_", "quant_act")) else fn
    rt._need = _no_pdl
    orig = r4d.gemm_w4a16_nt_bf16
    r4d.gemm_w4a16_nt_bf16 = lambda *a, **k: orig(*a, pdl=False, **k)
    print("PDL off for the ops' launches")

gen = torch.Generator().manual_seed(0)
for fmt, op in T.FMTS:
    for N, K in T.SHAPES:
        m, wref = T._make(fmt, N, K, gen)
        for lead in ((1,), (3,), (2, 8), (16,), (33,), (64,), (65,), (200,)):
            x = (torch.randn(*lead, K, generator=gen)).to(torch.bfloat16).cuda()
            M = int(np.prod(lead))
            path = rt.path_for(op, N, K, M)
            y = m(x)
            x2 = x.reshape(M, K)
            xa = T._e4m3_ref(x2) if (path == "kernel" and fmt != "w4a16") else x2.float()
            e = T._rel(y.reshape(M, N), xa @ wref.T)
            torch.cuda.synchronize()
            y2 = m(x)
            e2 = T._rel(y2.reshape(M, N), xa @ wref.T)
            line = f"{fmt} N={N} K={K} lead={lead} path={path} e={e:.2e} e_again={e2:.2e} same={torch.equal(y, y2)}"
            if M <= 3:
                ref64 = xa.double().cpu() @ wref.double().cpu().T
                e_cpu = float((y.double().cpu().reshape(M, N) - ref64).norm() / ref64.norm())
                gpu_ref = (xa @ wref.T).double().cpu()
                line += f" e_cpu={e_cpu:.2e} gpu_ref_vs_cpu={float((gpu_ref - ref64).norm() / ref64.norm()):.2e}"
            if path == "kernel" and fmt != "w4a16":
                qb = torch.empty((M, K), dtype=torch.uint8, device="cuda")
                sc = torch.empty((M,), dtype=torch.float32, device="cuda")
                r4d.quant_act_fp8(x2.data_ptr(), qb.data_ptr(), sc.data_ptr(), M, K,
                                  torch.cuda.current_stream().cuda_stream)
                torch.cuda.synchronize()
                xk = qb.view(torch.float8_e4m3fn).float() * sc[:, None]
                e_own = T._rel(y2.reshape(M, N), xk @ wref.T)
                a = x2.float()
                s = a.abs().amax(-1, keepdim=True) / 448.0
                emu_codes = (a / s).clamp(-448, 448).to(torch.float8_e4m3fn).view(torch.uint8)
                diff = emu_codes != qb
                rows = int(diff.any(-1).sum())
                sdiff = float(((sc[:, None] - s).abs() / s).max())
                line += (f" e_own={e_own:.2e} codes_differ={int(diff.sum())} in {rows} rows"
                         f" scale_rel_diff={sdiff:.1e}")
                # The two activation references themselves: the test's emulation and the bytes.
                far = ((xa - xk).abs() > 1e-5 * xk.abs().clamp_min(1e-30))
                line += f" rel(xa,xk)={T._rel(xa, xk):.2e} far={int(far.sum())}"
                if int(far.sum()):
                    j = far.nonzero()[:3].tolist()
                    line += " far e.g. " + ", ".join(
                        f"[{r},{c}] x={float(a[r, c]):.6g} xa={float(xa[r, c]):.6g} xk={float(xk[r, c]):.6g}"
                        f" code={int(qb[r, c])}" for r, c in j)
                if int(diff.sum()):
                    i = diff.nonzero()[:3].tolist()
                    line += " e.g. " + ", ".join(
                        f"[{r},{c}] x={float(a[r, c]):.6g} x/s={float(a[r, c] / s[r, 0]):.6g} "
                        f"emu={int(emu_codes[r, c])} qa8={int(qb[r, c])}" for r, c in i)
            if max(e, e2) > 3e-3 or "codes_differ=0" not in line:
                print(line, flush=True)
print("diag2 done")
