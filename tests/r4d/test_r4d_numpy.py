"""r4d's Python surface without a GPU: quantize (the quant library's clip search), pack, select,
config_for against the compiled-in tables and against the synthetic tables' _CFG / _CFG_A8 (sm90a
winners among them, as ("sm90a", WV, SK, MB, NPW, NT, ST) tuples), table() and compiled_configs()
in the same tuple forms, and the launch callables' pdl keyword and sm90a form. Run by CTest with
PYTHONPATH at the built module."""
import os
import sys

import numpy as np

import r4d

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def load_tables(name):
    """The emitted Python tables (configs/generated/<name>.py) as a dict of their globals."""
    g = {}
    with open(os.path.join(REPO, "configs", "generated", name + ".py")) as f:
        exec(compile(f.read(), name + ".py", "exec"), g)  # noqa: S102 - our own generated file
    return g


def expected_config(table, N, K, M):
    """The seeds' config_for over every generation's tuples, with r4d's MB clamp (MB = 3 is
    declined except in the sm90a generation at ST 4, kernels/config.hpp is_valid_sm90a)."""
    if M < 1 or M > 64 or (N, K) not in table:
        return None
    for lim, cfg in table[(N, K)]:
        if M <= lim:
            mb_at = 3 if isinstance(cfg[0], str) else 2
            cfg = list(cfg)
            cfg[mb_at] = min(cfg[mb_at], (M + 15) // 16)
            mb3_ok = cfg[0] == "sm90a" and cfg[6] == 4
            return None if cfg[mb_at] == 3 and not mb3_ok else tuple(cfg)
    return None


def is_config_tuple(c):
    if len(c) == 5:
        return all(isinstance(v, int) for v in c)
    return len(c) == 7 and c[0] in ("sm90a", "ldg") and all(isinstance(v, int) for v in c[1:])


def check_sm90a_tables():
    """config_for over the synthetic tables (16 sm90a winners) for every shape and M = -1..70;
    table() and compiled_configs() in the emitted tuple forms; malformed tuples refused."""
    t = load_tables("synthetic_tables")
    assert t["_CFG_KNOBS"]["sm90a"] == ("WV", "SK", "MB", "NPW", "NT", "ST")
    sm90a = 0
    for cfg_table, dtype in ((t["_CFG"], "w4a16"), (t["_CFG_A8"], "w4a8")):
        for (N, K) in list(cfg_table) + [(5120, 25600)]:
            for M in range(-1, 71):
                got = r4d.config_for(N, K, M, table=cfg_table, dtype=dtype)
                want = expected_config(cfg_table, N, K, M)
                assert got == want, (dtype, N, K, M, got, want)
                sm90a += got is not None and got[0] == "sm90a"
    assert sm90a > 0
    # An sm90a band: served with its generation and ST, MB clamped.
    assert r4d.config_for(17408, 5120, 1, table=t["_CFG"]) == ("sm90a", 4, 1, 1, 2, 1, 6)
    assert r4d.config_for(17408, 5120, 20, table=t["_CFG_A8"], dtype="w4a8") == \
        ("sm90a", 4, 1, 2, 1, 0, 8)
    # Configs is_valid refuses are declined (ST 5; one consumer warp), malformed tuples refused.
    assert r4d.config_for(3072, 5120, 8, table={(3072, 5120): [(64, ("sm90a", 4, 1, 1, 1, 0, 5))]}) is None
    assert r4d.config_for(3072, 5120, 8, table={(3072, 5120): [(64, ("sm90a", 1, 1, 1, 1, 0, 4))]}) is None
    for bad in (("sm91", 4, 1, 1, 1, 0, 4), ("sm90a", 4, 1, 1, 1, 0), (4, 1, 1, 1), ("x",)):
        try:
            r4d.config_for(3072, 5120, 8, table={(3072, 5120): [(64, bad)]})
            raise AssertionError("config %r was accepted" % (bad,))
        except ValueError:
            pass
    # The compiled-in tables: same tuple forms; served as their own dicts; compiled_configs cover
    # every config they hand out where the generation is built.
    for dtype in ("w4a16", "w4a8"):
        tab = r4d.table(dtype)
        compiled = r4d.compiled_configs(dtype)
        assert all(is_config_tuple(c) for c in compiled), compiled
        for (N, K), bands in tab.items():
            assert all(is_config_tuple(c) for _, c in bands), bands
            for M in range(1, 65):
                c = r4d.config_for(N, K, M, dtype=dtype)
                assert c == r4d.config_for(N, K, M, table=tab, dtype=dtype), (N, K, M)
                if c is not None and r4d.has_kernels() and \
                        r4d.has_generation(c[0] if isinstance(c[0], str) else "mma_sync"):
                    assert c in compiled, (dtype, N, K, M, c)
    assert r4d.has_generation("mma_sync") == r4d.has_kernels()
    assert r4d.has_generation("ldg") == r4d.has_kernels()
    try:
        r4d.has_generation("sm91")
        raise AssertionError("generation 'sm91' was accepted")
    except ValueError:
        pass
    return sm90a


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
    sm90a_cfg = ("sm90a", 4, 1, 1, 1, 0, 4)
    for pdl in (None, True, False):
        for call in (lambda: r4d.gemm(0, 0, 0, 0, 8, 5120, 256, 0, pdl=pdl),
                     lambda: r4d.gemm_w4a16_nt(0, 0, 0, 0, 8, 5120, 256, *sm90a_cfg, 0, pdl=pdl),
                     lambda: r4d.gemm_w4a16_nt_bf16(0, 0, 0, 0, 8, 5120, 256, *sm90a_cfg, 0,
                                                    pdl=pdl),
                     lambda: r4d.gemm_w4a8_nt(0, 0, 0, 0, 0, 8, 5120, 256, *sm90a_cfg, 0, pdl=pdl),
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
    # The activation order a config's one-byte GEMM reads (r4d::act_order), and a bad order named.
    # Every sm90a config of the one-byte dtypes reads the sm90a order (kernels/config.hpp act_order);
    # w4a16 and the other generations read natural order.
    mb4 = ("sm90a", 8, 1, 4, 2, 1, 4)
    assert r4d.act_order(mb4) == "sm90a" and r4d.act_order(mb4, "w4a8") == "sm90a"
    assert r4d.act_order(mb4, "w4a8fp8") == "sm90a"
    assert r4d.act_order(sm90a_cfg) == "sm90a" and r4d.act_order(sm90a_cfg, "w4a8fp8") == "sm90a"
    assert r4d.act_order(sm90a_cfg, "w4a16") == "natural"
    # MXFP4's sm90a configs read the sm90a_mx order (its weights' k map differs).
    assert r4d.act_order(sm90a_cfg, "mxfp4a8fp8") == "sm90a_mx"
    assert r4d.act_order(("ldg", 4, 1, 1, 1, 0, 4), "mxfp4a8fp8") == "natural"
    assert r4d.act_order((1, 1, 1, 1, 0)) == "natural"
    assert r4d.act_order(("ldg", 4, 1, 1, 1, 0, 4)) == "natural"
    try:
        r4d.quant_act(0, 0, 0, 8, 5120, 0, order="transposed")
        raise AssertionError("order='transposed' was accepted")
    except ValueError as e:
        assert "order" in str(e), e
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
    try:
        r4d.gemm_w4a16_nt(0, 0, 0, 0, 8, 5120, 256, "sm91", 4, 1, 1, 1, 0, 4, 0)
        raise AssertionError("generation 'sm91' was accepted by a launcher")
    except ValueError:
        pass
    s = r4d.stats()
    assert "pdl_launches" in s and "pdl_unsupported" in s and s["pdl_launches"] == 0, s
    sm90a = check_sm90a_tables()
    print("ok: rel RMS %.4e; %d sm90a answers from the synthetic tables" % (rel, sm90a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
