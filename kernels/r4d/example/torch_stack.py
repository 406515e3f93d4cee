#!/usr/bin/env python3
"""A stack of r4d_torch modules from `r4tune quant` outputs: eager, torch.compile(fullgraph=True),
CUDA graph; per-layer errors; step time against bf16 and block-fp8 stacks (issue 13 item 4).

    r4tune quant int4  drafter.safetensors int4.safetensors --layout sm80
    r4tune quant mxfp4 drafter.safetensors mxfp4.safetensors
    python3 kernels/r4d/example/torch_stack.py --bf16 drafter.safetensors \
        --int4 int4.safetensors --w4a8fp8 int4.safetensors --mxfp4 mxfp4.safetensors [--gptq g.safetensors]

--bf16 is the original weights file (the six drafter shapes); each layer is one of its 2-D tensors
(--tensors picks them, default all), loaded from each quantised file under the same name. The six
shapes do not chain (K of one is not N of the previous), so a step runs every layer on its own
input of M rows: one launch per layer, as a decoder layer issues them. For each format and M:

- per layer, the relative Frobenius error of the module's output against the bf16 forward
  (x @ W^T with the original weights, f32) and against the dequantised reference (the module's own
  weights; for the fp8 kernels with the activations rounded to e4m3 per row as quant_act_fp8 does);
- eager output vs torch.compile(fullgraph=True) vs a CUDA-graph replay of the compiled stack
  (must be equal);
- step time of the graphed stack against the same stack in bf16 (torch.matmul) and block-fp8
  (torch._scaled_mm, e4m3 weights with a scale per 128x128 block and activations per 1x128 block;
  where this torch/device refuses block scales, per-row/per-column scales, and the output says so;
  where cuBLASLt refuses the M, M padded with zero rows to a multiple of 16, as the tuner's
  baseline does, and the output says so).

Needs a CUDA device, torch 2.x, the r4d module on PYTHONPATH (or --r4d-path) and, for the fp8
formats, sm_89 or newer.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def die(msg):
    print(f"torch_stack: {msg}", file=sys.stderr)
    sys.exit(2)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bf16", required=True, help="original bf16/f32 weights (safetensors)")
    ap.add_argument("--int4", help="r4tune quant int4 --layout sm80 output: W4A16Linear")
    ap.add_argument("--w4a8fp8", help="int4 (--layout sm80) or gptq output: W4A8Fp8Linear")
    ap.add_argument("--gptq", help="r4tune quant gptq output or an AutoRound checkpoint: W4A8Fp8Linear")
    ap.add_argument("--mxfp4", help="r4tune quant mxfp4 output (or NVFP4 checkpoint): MXFP4Linear")
    ap.add_argument("--tensors", nargs="*", help="tensor names (default: every 2-D tensor of --bf16)")
    ap.add_argument("--M", default="1,8,16,32,64,128", help="comma-separated row counts")
    ap.add_argument("--iters", type=int, default=50, help="timed graph replays per measurement")
    ap.add_argument("--r4d-path", help="folder holding the built r4d module")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    return ap.parse_args()


def main():
    args = parse()
    if args.r4d_path:
        sys.path.insert(0, args.r4d_path)
    try:
        import torch
    except ImportError as e:
        die(f"torch is not importable: {e}")
    if not torch.cuda.is_available():
        die("no CUDA device: r4d_torch's ops run on CUDA only")
    try:
        import r4d  # noqa: F401
    except ImportError as e:
        die(f"the r4d module is not importable ({e}); pass --r4d-path build/kernels/r4d")
    import numpy as np
    import r4d_torch as rt

    fmts = [(n, p, c) for n, p, c in (("w4a16", args.int4, rt.W4A16Linear),
                                      ("w4a8fp8", args.w4a8fp8, rt.W4A8Fp8Linear),
                                      ("gptq", args.gptq, rt.W4A8Fp8Linear),
                                      ("mxfp4", args.mxfp4, rt.MXFP4Linear)) if p]
    if not fmts:
        die("name at least one of --int4 / --w4a8fp8 / --gptq / --mxfp4")
    for n, p, _ in fmts + [("bf16", args.bf16, None)]:
        if not os.path.isfile(p):
            die(f"--{n}: no such file {p}")
    cc = torch.cuda.get_device_capability()
    print(f"device {torch.cuda.get_device_name()} (sm_{cc[0]}{cc[1]}), torch {torch.__version__}, "
          f"r4d tables {r4d.table_info().get('device')}")
    if cc < (8, 9):
        dropped = [n for n, _, c in fmts if c is not rt.W4A16Linear]
        if dropped:
            print(f"skipping {dropped}: fp8 activations need sm_89+")
        fmts = [f for f in fmts if f[2] is rt.W4A16Linear]

    src = rt.SafetensorsReader(args.bf16)
    names = args.tensors or [t for t in src.names() if len(src.shape(t)) == 2]
    if not names:
        die(f"{args.bf16} has no 2-D tensors")
    dev = torch.device("cuda")
    W = {}
    for t in names:
        if t not in src:
            die(f"--tensors: '{t}' is not in {args.bf16}")
        a = src.get(t)
        W[t] = (torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if src.dtype(t) == "BF16"
                else torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)).to(dev)
    Ms = [int(m) for m in args.M.split(",") if m]

    def e4m3_rows(x):
        a = x.float()
        s = a.abs().amax(-1, keepdim=True) / 448.0
        s = torch.where(s > 0, s, torch.ones_like(s))
        return (a / s).clamp(-448, 448).to(torch.float8_e4m3fn).float() * s

    def rel(y, ref):
        return float((y.float() - ref).norm() / ref.norm().clamp_min(1e-30))

    def graphed(fn, xs):
        for _ in range(3):
            fn(xs)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = fn(xs)
        return g, out

    def time_graph(g):
        g.replay()
        torch.cuda.synchronize()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(args.iters):
            g.replay()
        t1.record()
        torch.cuda.synchronize()
        return t0.elapsed_time(t1) / args.iters * 1e3  # us

    # block-fp8 baseline: weights e4m3 with a scale per 128x128 block.
    def fp8_blocks(w):
        N, K = w.shape
        wb = w.float().reshape(N // 128, 128, K // 128, 128) if N % 128 == 0 and K % 128 == 0 else None
        if wb is None:
            return None
        s = wb.abs().amax(dim=(1, 3)).clamp_min(1e-12) / 448.0  # [N/128, K/128]
        q = (wb / s[:, None, :, None]).to(torch.float8_e4m3fn).reshape(N, K)
        return q, s

    fp8_mode = ["block"]

    def fp8_linear(x, q, s):
        """x bf16 [M, K] -> bf16 [M, N] through torch._scaled_mm: block mode (q e4m3 [N, K], s
        [N/128, K/128]; activations per 1x128 block) or row mode (s [1, N]; activations per row)."""
        M, K = x.shape
        if fp8_mode[0] == "block":
            xa = x.float().reshape(M, K // 128, 128)
            sa = xa.abs().amax(-1).clamp_min(1e-12) / 448.0  # [M, K/128]
            xq = (xa / sa[..., None]).to(torch.float8_e4m3fn).reshape(M, K)
            return torch._scaled_mm(xq, q.t(), scale_a=sa.t().contiguous().t(), scale_b=s.t(),
                                    out_dtype=torch.bfloat16)
        sa = x.float().abs().amax(-1, keepdim=True).clamp_min(1e-12) / 448.0
        xq = (x.float() / sa).to(torch.float8_e4m3fn)
        return torch._scaled_mm(xq, q.t(), scale_a=sa, scale_b=s, out_dtype=torch.bfloat16)

    def probe_block_fp8():
        """Does this torch/device take per-128-block scales, with the right numbers?"""
        g = torch.Generator(device="cuda").manual_seed(0)
        w = torch.randn(256, 512, device=dev, generator=g).to(torch.bfloat16)
        x = torch.randn(16, 512, device=dev, generator=g).to(torch.bfloat16)
        q, s = fp8_blocks(w)
        try:
            y = fp8_linear(x, q, s)
        except Exception as e:  # noqa: BLE001 - refused here
            return f"row: per-128-block scales refused by torch._scaled_mm ({type(e).__name__}: {str(e)[:100]})"
        err = rel(y, x.float() @ w.float().T)
        return "block" if err < 5e-2 else f"row: per-128-block scaled_mm gave rel err {err:.2e}"

    fp8w = {}
    if cc >= (8, 9) and hasattr(torch, "_scaled_mm"):
        fp8_mode[0] = probe_block_fp8()
        print(f"block-fp8 baseline: {fp8_mode[0]}")
        for t, w in W.items():
            b = fp8_blocks(w)
            if b is None:
                continue
            q, s = b
            # per-column scales for the row-wise fallback: dequantise, requantise per output row
            wf = (q.float().reshape(w.shape[0] // 128, 128, -1, 128) * s[:, None, :, None]).reshape(w.shape)
            sr = wf.abs().amax(-1).clamp_min(1e-12) / 448.0
            qr = (wf / sr[:, None]).to(torch.float8_e4m3fn)
            fp8w[t] = (q, s) if fp8_mode[0] == "block" else (qr, sr[None, :].contiguous())

    results = []
    for fname, path, cls in fmts:
        mods = {}
        for t in names:
            try:
                mods[t] = cls.from_safetensors(path, t).to(dev)
            except (ValueError, KeyError, NotImplementedError, RuntimeError) as e:
                die(f"--{fname} {path}: layer '{t}': {e}")
        op = cls.OP
        print(f"\n== {fname}: {cls.__name__} (r4d::{op}) from {path}, {len(mods)} layers")
        wdq = {t: m.dequantized() for t, m in mods.items()}
        for m_ in mods.values():
            m_.prepare_dense()

        def stack(xs, mods=mods):
            return [mods[t](x) for t, x in zip(names, xs)]

        # One compiled graph per M and format: a fresh dynamo cache per format keeps the
        # recompiles (one per M) under torch's recompile limit (8; seen on the H200, torch 2.11).
        torch._dynamo.reset()
        compiled = stack if args.no_compile else torch.compile(stack, fullgraph=True, dynamic=False)
        for M in Ms:
            gen = torch.Generator(device="cuda").manual_seed(M)
            xs = [torch.randn(M, W[t].shape[1], device=dev, generator=gen).to(torch.bfloat16) for t in names]
            eager = stack(xs)
            comp = compiled(xs)
            same_c = all(torch.equal(a, b) for a, b in zip(eager, comp))
            g, gout = graphed(compiled, xs)
            g.replay()
            torch.cuda.synchronize()
            same_g = all(torch.equal(a, b) for a, b in zip(eager, gout))
            print(f"M={M:<4} compile==eager {same_c}  graph==eager {same_g}")
            for t, x, y in zip(names, xs, eager):
                N, K = W[t].shape
                path_ = rt.path_for(op, N, K, M)
                xa = e4m3_rows(x) if (path_ == "kernel" and fname != "w4a16") else x.float()
                e_bf = rel(y, x.float() @ W[t].float().T)
                e_dq = rel(y, xa @ wdq[t].T)
                print(f"   {t:<40} N={N:<6} K={K:<6} {path_:<6} rel err vs bf16 {e_bf:.3e}  vs dequant {e_dq:.3e}")
                results.append((fname, M, t, e_bf, e_dq))
            t_r4d = time_graph(g)
            gb, _ = graphed(lambda xs: [torch.matmul(x, W[t].t()) for t, x in zip(names, xs)], xs)
            t_bf16 = time_graph(gb)
            line = f"   step: {fname} {t_r4d:8.1f} us | bf16 {t_bf16:8.1f} us ({t_bf16 / t_r4d:.2f}x)"
            if fp8w and all(t in fp8w for t in names):
                mode = fp8_mode[0].split(':')[0]

                def fp8_stack(xs):
                    return [fp8_linear(x, *fp8w[t]) for t, x in zip(names, xs)]

                try:
                    gf, _ = graphed(fp8_stack, xs)
                    t_fp8 = time_graph(gf)
                    line += f" | fp8 {mode} {t_fp8:8.1f} us ({t_fp8 / t_r4d:.2f}x)"
                except Exception as e:  # noqa: BLE001
                    # cuBLASLt's block-scaled fp8 GEMM refuses some M (M = 1 on the H100 and H200
                    # with torch 2.11: CUBLAS_STATUS_NOT_SUPPORTED); the tuner's baseline pads M to
                    # a multiple of 16 then (kernels/baseline_cublaslt.cpp), and so does this one.
                    P = (M + 15) // 16 * 16
                    if mode != "block" or P == M:
                        line += f" | fp8 baseline failed: {type(e).__name__}: {str(e)[:160]}"
                    else:
                        xp = [torch.nn.functional.pad(x, (0, 0, 0, P - M)) for x in xs]
                        gf, _ = graphed(fp8_stack, xp)
                        t_fp8 = time_graph(gf)
                        line += (f" | fp8 {mode} {t_fp8:8.1f} us ({t_fp8 / t_r4d:.2f}x; M padded to {P}:"
                                 f" cuBLASLt refused M = {M})")
            else:
                line += " | fp8 baseline n/a (needs sm_89+, torch._scaled_mm and N, K % 128 == 0)"
            print(line)
            if not (same_c and same_g):
                print("   ERROR: compiled / graphed outputs differ from eager", file=sys.stderr)
                sys.exit(1)
    print("\nworst per format: " + ", ".join(
        f"{f}: bf16 {max(r[3] for r in results if r[0] == f):.3e} dequant {max(r[4] for r in results if r[0] == f):.3e}"
        for f in dict.fromkeys(r[0] for r in results)))


if __name__ == "__main__":
    main()
