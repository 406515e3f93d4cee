"""r4d's Python surface without a GPU: quantize (the quant library's clip search), pack, select,
config_for against the compiled-in tables, and the launch callables' pdl keyword. Run by CTest with PYTHONPATH at the built module."""
import sys

import numpy as np

import r4d


def main():
    rng = np.random.default_rng(0)
    W = rng.standard_normal((256, 1024)).astype(np.float32)
    q, s = r4d.quantize(W, group=128, clip_steps=20)
    assert q.shape == (256, 1024) and q.dtype == np.int8 and s.shape == (256, 8)
    assert q.min() >= -8 and q.max() <= 7
    deq = (q.reshape(256, 8, 128) * s.astype(np.float16).astype(np.float32)[..., None]).reshape(W.shape)
    rel = float(np.sqrt(((deq - W) ** 2).sum() / (W ** 2).sum()))
    # The seed's figure for Gaussian weights is about 1.01e-1 (shared/DESIGN.md).
    assert 0.095 < rel < 0.105, rel
    wq, wsz = r4d.pack(q, s)
    assert wq.shape == (256 * 1024 // 8,) and wsz.shape == (256 // 16 * 8 * 16,)
    try:
        r4d.quantize(W[:, :1000])
        raise AssertionError("K not a multiple of the group was accepted")
    except ValueError:
        pass
    assert r4d.GEMM_W4_GROUP == 128 and r4d.GEMM_W4_MAX_M == 64 and r4d.GEMM_W4A8_GROUP == 128
    assert r4d.select("gemm_nt", M=64, K=5120, N=5120, dtype="w4a16") in ("gemm_w4a16_nt", None)
    assert r4d.config_for(12345 * 16, 5120, 8) is None  # unknown shapes are declined
    assert r4d.config_for(17408, 5120, 65) is None  # outside the decode band
    # Programmatic dependent launch: every launch callable takes the keyword pdl (None = automatic,
    # True, False); nothing is registered here (no GPU, or no init), so there is no PDL and a
    # launch raises RuntimeError naming why, whatever pdl says. A non-bool pdl is a TypeError.
    assert r4d.pdl_supported(0) is False and r4d.pdl_supported(device=0) is False
    for pdl in (None, True, False):
        for call in (lambda: r4d.gemm(0, 0, 0, 0, 8, 5120, 256, 0, pdl=pdl),
                     lambda: r4d.quant_act(0, 0, 0, 8, 5120, 0, pdl=pdl),
                     lambda: r4d.gemm_w4a16_nt(0, 0, 0, 0, 8, 5120, 256, 1, 1, 1, 1, 0, 0, pdl=pdl),
                     lambda: r4d.gemm_w4a16_nt_bf16(0, 0, 0, 0, 8, 5120, 256, 1, 1, 1, 1, 0, 0,
                                                    pdl=pdl),
                     lambda: r4d.gemm_w4a8_nt(0, 0, 0, 0, 0, 8, 5120, 256, 1, 1, 1, 1, 0, 0,
                                              pdl=pdl)):
            try:
                call()
                raise AssertionError("a launch without a registered device went through")
            except RuntimeError as e:
                assert str(e).startswith("r4d."), e
    try:
        r4d.gemm(0, 0, 0, 0, 8, 5120, 256, 0, pdl="yes")
        raise AssertionError("pdl='yes' was accepted")
    except TypeError:
        pass
    try:
        r4d.gemm(0, 0, 0, 0, 8, 5120, 256, 0, True)  # pdl is keyword-only
        raise AssertionError("pdl was accepted positionally")
    except TypeError:
        pass
    s = r4d.stats()
    assert "pdl_launches" in s and "pdl_unsupported" in s and s["pdl_launches"] == 0, s
    print("ok: rel RMS %.4e" % rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
