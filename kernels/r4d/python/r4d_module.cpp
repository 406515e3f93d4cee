// The Python module `r4d`: the surface seeds/000 uses (select, the constants, launch callables
// named as select returns them, taking integer device pointers and an integer stream handle)
// plus config_for, the automatic gemm, the tables, the counters, and pack() over quant/. Every
// launch callable takes the keyword `pdl`: None (automatic: programmatic dependent launch where
// the device supports it), True (on; raises where the device cannot) or False (off).
//
// Configs are tuples as the emitted _CFG holds them (reports/emit_python.cpp): the mma_sync
// generation's (WV, SK, MB, NPW, NT), the seeds' 5-tuple, and the sm90a generation's
// ("sm90a", WV, SK, MB, NPW, NT, ST). config_for / table / compiled_configs return them so, and the
// GEMM callables take either splatted after N (`_GEMM(a, wq, wsz, c, M, K, N, *cfg, stream)`, the
// seeds' call, works for both).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/int4.hpp"
#include "quant/pack.hpp"
#include "quant/pack_mx.hpp"
#include "r4d/r4d.hpp"

namespace py = pybind11;

namespace {

using ptr = std::uintptr_t;

const void* cp(ptr p) {
  return reinterpret_cast<const void*>(p);
}
void* mp(ptr p) {
  return reinterpret_cast<void*>(p);
}

r4d::Dtype dtype_arg(const std::string& s) {
  const auto d = r4d::parse_dtype(s);
  if (!d)
    throw py::value_error("r4d: dtype must be 'w4a16', 'w4a8', 'w4a8fp8' or 'mxfp4a8fp8', got '" +
                          s + "'");
  return *d;
}

// pdl=None / True / False -> r4d::Pdl.
r4d::Pdl pdl_arg(const std::optional<bool>& pdl) {
  if (!pdl) return r4d::Pdl::automatic;
  return *pdl ? r4d::Pdl::on : r4d::Pdl::off;
}

// Launch wrapper: registers the workspace on first use outside capture, raises on refusal.
template <class F>
void launch(const char* what, ptr stream, F&& f) {
  const r4d::stream_t s = r4d::stream_from_handle(stream);
  r4d::Status st = r4d::ensure_initialised(s);
  if (st == r4d::Status::ok) st = f(s);
  if (st != r4d::Status::ok)
    throw std::runtime_error(std::string("r4d.") + what + ": " + std::string(r4d::to_string(st)));
}

// "mma_sync" / "sm90a" / "ldg" -> the generation (r4d::kGenMmaSync / kGenSm90a / kGenLdg).
int generation_arg(const std::string& name) {
  for (int g : {r4d::kGenMmaSync, r4d::kGenSm90a, r4d::kGenLdg})
    if (r4d::generation_name(g) == name) return g;
  throw py::value_error("r4d: unknown kernel generation '" + name +
                        "' (expected 'mma_sync', 'sm90a' or 'ldg')");
}

// A config as the emitted _CFG writes it: (WV, SK, MB, NPW, NT) for mma_sync, ("sm90a", WV, SK,
// MB, NPW, NT, ST) for sm90a.
py::tuple config_tuple(const r4d::Config& c) {
  if (c.gen == r4d::kGenMmaSync) return py::make_tuple(c.wv, c.sk, c.mb, c.npw, c.nt);
  return py::make_tuple(std::string(r4d::generation_name(c.gen)), c.wv, c.sk, c.mb, c.npw, c.nt,
                        c.st);
}
py::object config_tuple(const std::optional<r4d::Config>& c) {
  if (!c) return py::none();
  return config_tuple(*c);
}

// The inverse: a 5-tuple of ints (mma_sync), or a tuple starting with the generation's name and
// then its knobs (_CFG_KNOBS order: five for mma_sync, six with ST for sm90a).
r4d::Config config_from_tuple(const py::tuple& c) {
  const auto bad = [&] {
    return py::value_error(
        "r4d: a config is (WV, SK, MB, NPW, NT) or (\"sm90a\", WV, SK, MB, NPW, "
        "NT, ST), got " +
        py::repr(c).cast<std::string>());
  };
  if (c.size() == 5 && !py::isinstance<py::str>(c[0]))
    return {c[0].cast<int>(), c[1].cast<int>(), c[2].cast<int>(), c[3].cast<int>(),
            c[4].cast<int>()};
  if (c.empty() || !py::isinstance<py::str>(c[0])) throw bad();
  const int gen = generation_arg(c[0].cast<std::string>());
  const std::size_t knobs = gen == r4d::kGenMmaSync ? 5 : 6;
  if (c.size() != knobs + 1) throw bad();
  r4d::Config out{c[1].cast<int>(),
                  c[2].cast<int>(),
                  c[3].cast<int>(),
                  c[4].cast<int>(),
                  c[5].cast<int>(),
                  gen,
                  0};
  if (gen != r4d::kGenMmaSync) out.st = c[6].cast<int>();
  return out;
}

// {(N, K): [(limit, config), ...]}, the seeds' _CFG shape (either generation's tuples) -> rows.
std::vector<r4d_table_row> rows_from_dict(const py::dict& d) {
  std::vector<r4d_table_row> rows;
  for (const auto& item : d) {
    const auto key = item.first.cast<py::tuple>();
    const int n = key[0].cast<int>(), k = key[1].cast<int>();
    for (const auto& band : item.second.cast<py::list>()) {
      const auto b = band.cast<py::tuple>();
      const r4d::Config c = config_from_tuple(b[1].cast<py::tuple>());
      rows.push_back({n, k, b[0].cast<int>(), c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st});
    }
  }
  return rows;
}

py::dict dict_from_table(r4d::Table t) {
  py::dict out;
  for (const auto& r : t) {
    const auto key = py::make_tuple(r.n, r.k);
    if (!out.contains(key)) out[key] = py::list();
    out[key].cast<py::list>().append(py::make_tuple(
        r.m_limit, config_tuple(r4d::Config{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st})));
  }
  return out;
}

// order="natural" / "sm90a" / "sm90a_mx" -> r4d::ActOrder, and back.
r4d::ActOrder order_arg(const std::string& order) {
  if (order == "natural") return r4d::ActOrder::natural;
  if (order == "sm90a") return r4d::ActOrder::sm90a;
  if (order == "sm90a_mx") return r4d::ActOrder::sm90a_mx;
  throw py::value_error("r4d: order must be 'natural', 'sm90a' or 'sm90a_mx', got '" + order + "'");
}
std::string order_name(r4d::ActOrder o) {
  switch (o) {
    case r4d::ActOrder::sm90a:
      return "sm90a";
    case r4d::ActOrder::sm90a_mx:
      return "sm90a_mx";
    case r4d::ActOrder::natural:
      break;
  }
  return "natural";
}

// A config splatted after N as (gen name, WV, SK, MB, NPW, NT, ST): the sm90a tuple's form.
r4d::Config splat_config(const std::string& gen, int WV, int SK, int MB, int NPW, int NT, int ST) {
  return {WV, SK, MB, NPW, NT, generation_arg(gen), ST};
}

}  // namespace

PYBIND11_MODULE(r4d, m) {
  m.doc() = "r4d: tuned 4-bit decode-band GEMMs (see kernels/r4d/README.md)";
  m.attr("GEMM_W4_GROUP") = r4d::GEMM_W4_GROUP;
  m.attr("GEMM_W4_MAX_M") = r4d::GEMM_W4_MAX_M;
  m.attr("GEMM_W4A8_GROUP") = r4d::GEMM_W4A8_GROUP;
  m.attr("A8_M") = r4d::a8_m();

  m.def(
      "select",
      [](const std::string& op, std::int64_t M, std::int64_t K, std::int64_t N,
         const std::string& dtype) -> py::object {
        const auto name = r4d::select(op, M, K, N, dtype);
        if (!name) return py::none();
        return py::str(std::string(*name));
      },
      py::arg("op"), py::kw_only(), py::arg("M") = 1, py::arg("K") = 0, py::arg("N") = 0,
      py::arg("dtype") = "w4a16", "Kernel name for (op, M, K, N, dtype) in this build, or None.");

  m.def(
      "config_for",
      [](std::int64_t n, std::int64_t k, std::int64_t mm, py::object table,
         const std::string& dtype) -> py::object {
        r4d::Dtype d = dtype_arg(dtype);
        if (table.is_none()) return config_tuple(r4d::config_for(n, k, mm, d));
        if (py::isinstance<py::str>(table)) {
          d = dtype_arg(table.cast<std::string>());
          return config_tuple(r4d::config_for(n, k, mm, d));
        }
        const auto rows = rows_from_dict(table.cast<py::dict>());
        return config_tuple(r4d::config_for(n, k, mm, r4d::Table(rows), d));
      },
      py::arg("N"), py::arg("K"), py::arg("M"), py::arg("table") = py::none(),
      py::arg("dtype") = "w4a16",
      "(WV, SK, MB, NPW, NT), ('sm90a', WV, SK, MB, NPW, NT, ST) or None. table: None "
      "(compiled-in, of dtype), 'w4a16'/'w4a8', or a dict in the seeds' _CFG shape, either "
      "generation's tuples (validated as dtype's kernel).");

  m.def(
      "gemm_w4a16_nt",
      [](ptr a, ptr wq, ptr wsz, ptr c, int M, int K, int N, int WV, int SK, int MB, int NPW,
         int NT, ptr stream, std::optional<bool> pdl) {
        launch("gemm_w4a16_nt", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a16_nt(cp(a), cp(wq), cp(wsz), mp(c), M, K, N, WV, SK, MB, NPW, NT, s,
                                    pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"), py::arg("K"),
      py::arg("N"), py::arg("WV"), py::arg("SK"), py::arg("MB"), py::arg("NPW"), py::arg("NT"),
      py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      "C bf16 [M,N] = A f16 [M,K] x W^T (all integer device pointers; stream an int; pdl None = "
      "automatic, True, False).");
  m.def(
      "gemm_w4a16_nt",
      [](ptr a, ptr wq, ptr wsz, ptr c, int M, int K, int N, const std::string& gen, int WV, int SK,
         int MB, int NPW, int NT, int ST, ptr stream, std::optional<bool> pdl) {
        const r4d::Config cfg = splat_config(gen, WV, SK, MB, NPW, NT, ST);
        launch("gemm_w4a16_nt", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a16_nt(cp(a), cp(wq), cp(wsz), mp(c), M, K, N, cfg, s, pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"), py::arg("K"),
      py::arg("N"), py::arg("gen"), py::arg("WV"), py::arg("SK"), py::arg("MB"), py::arg("NPW"),
      py::arg("NT"), py::arg("ST"), py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      "The same with an sm90a config splatted after N: ('sm90a', WV, SK, MB, NPW, NT, ST).");
  m.def(
      "gemm_w4a16_nt_bf16",
      [](ptr a, ptr wq, ptr wsz, ptr c, int M, int K, int N, int WV, int SK, int MB, int NPW,
         int NT, ptr stream, std::optional<bool> pdl) {
        launch("gemm_w4a16_nt_bf16", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a16_nt_bf16(cp(a), cp(wq), cp(wsz), mp(c), M, K, N, WV, SK, MB, NPW,
                                         NT, s, pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"), py::arg("K"),
      py::arg("N"), py::arg("WV"), py::arg("SK"), py::arg("MB"), py::arg("NPW"), py::arg("NT"),
      py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      "As gemm_w4a16_nt with A in bf16.");
  m.def(
      "gemm_w4a16_nt_bf16",
      [](ptr a, ptr wq, ptr wsz, ptr c, int M, int K, int N, const std::string& gen, int WV, int SK,
         int MB, int NPW, int NT, int ST, ptr stream, std::optional<bool> pdl) {
        const r4d::Config cfg = splat_config(gen, WV, SK, MB, NPW, NT, ST);
        launch("gemm_w4a16_nt_bf16", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a16_nt_bf16(cp(a), cp(wq), cp(wsz), mp(c), M, K, N, cfg, s,
                                         pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"), py::arg("K"),
      py::arg("N"), py::arg("gen"), py::arg("WV"), py::arg("SK"), py::arg("MB"), py::arg("NPW"),
      py::arg("NT"), py::arg("ST"), py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      "As gemm_w4a16_nt with A in bf16, an sm90a config splatted after N.");
  m.def(
      "gemm_w4a8_nt",
      [](ptr q, ptr sc, ptr wq, ptr wsz, ptr c, int M, int K, int N, int WV, int SK, int MB,
         int NPW, int NT, ptr stream, std::optional<bool> pdl) {
        launch("gemm_w4a8_nt", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a8_nt(cp(q), cp(sc), cp(wq), cp(wsz), mp(c), M, K, N, WV, SK, MB, NPW,
                                   NT, s, pdl_arg(pdl));
        });
      },
      py::arg("q"), py::arg("sc"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"),
      py::arg("K"), py::arg("N"), py::arg("WV"), py::arg("SK"), py::arg("MB"), py::arg("NPW"),
      py::arg("NT"), py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      "C bf16 [M,N] = diag(sc) q int8 [M,K] x W^T.");
  m.def(
      "gemm_w4a8_nt",
      [](ptr q, ptr sc, ptr wq, ptr wsz, ptr c, int M, int K, int N, const std::string& gen, int WV,
         int SK, int MB, int NPW, int NT, int ST, ptr stream, std::optional<bool> pdl) {
        const r4d::Config cfg = splat_config(gen, WV, SK, MB, NPW, NT, ST);
        launch("gemm_w4a8_nt", stream, [&](r4d::stream_t s) {
          return r4d::gemm_w4a8_nt(cp(q), cp(sc), cp(wq), cp(wsz), mp(c), M, K, N, cfg, s,
                                   pdl_arg(pdl));
        });
      },
      py::arg("q"), py::arg("sc"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"),
      py::arg("K"), py::arg("N"), py::arg("gen"), py::arg("WV"), py::arg("SK"), py::arg("MB"),
      py::arg("NPW"), py::arg("NT"), py::arg("ST"), py::arg("stream"), py::kw_only(),
      py::arg("pdl") = py::none(),
      "C bf16 [M,N] = diag(sc) q int8 [M,K] x W^T, an sm90a config splatted after N.");
  m.def(
      "act_order",
      [](const py::tuple& cfg, const std::string& dtype) {
        return order_name(r4d::act_order(dtype_arg(dtype), config_from_tuple(cfg)));
      },
      py::arg("cfg"), py::arg("dtype") = "w4a8",
      "The order ('natural', 'sm90a' or 'sm90a_mx') the dtype's GEMM with config cfg reads q in: "
      "pass it to quant_act / quant_act_fp8 as order=.");
  m.def(
      "quant_act",
      [](ptr a, ptr q, ptr sc, int M, int K, ptr stream, std::optional<bool> pdl,
         const std::string& order) {
        const r4d::ActOrder o = order_arg(order);  // a bad order is named before any launch
        launch("quant_act", stream, [&](r4d::stream_t s) {
          return r4d::quant_act(cp(a), mp(q), mp(sc), M, K, o, s, pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("q"), py::arg("sc"), py::arg("M"), py::arg("K"), py::arg("stream"),
      py::kw_only(), py::arg("pdl") = py::none(), py::arg("order") = "natural",
      "q int8 [M,K], sc f32 [M] = per-row quantisation of A bf16 [M,K]; q in order "
      "(act_order(cfg, dtype) of the GEMM config that reads it).");
  // The fp8-activation GEMMs (sm_89+): the w4a8 arguments; a config is splatted after N as
  // (gen, WV, SK, MB, NPW, NT, ST), what config_for(..., dtype=...) returns.
  for (const char* nm : {"gemm_w4a8fp8_nt", "gemm_mxfp4a8fp8_nt"}) {
    const std::string name = nm;
    m.def(
        nm,
        [name](ptr q, ptr sc, ptr wq, ptr wsz, ptr c, int M, int K, int N, const std::string& gen,
               int WV, int SK, int MB, int NPW, int NT, int ST, ptr stream,
               std::optional<bool> pdl) {
          const r4d::Config cfg = splat_config(gen, WV, SK, MB, NPW, NT, ST);
          launch(name.c_str(), stream, [&](r4d::stream_t s) {
            return name == "gemm_w4a8fp8_nt"
                       ? r4d::gemm_w4a8fp8_nt(cp(q), cp(sc), cp(wq), cp(wsz), mp(c), M, K, N, cfg,
                                              s, pdl_arg(pdl))
                       : r4d::gemm_mxfp4a8fp8_nt(cp(q), cp(sc), cp(wq), cp(wsz), mp(c), M, K, N,
                                                 cfg, s, pdl_arg(pdl));
          });
        },
        py::arg("q"), py::arg("sc"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"),
        py::arg("K"), py::arg("N"), py::arg("gen"), py::arg("WV"), py::arg("SK"), py::arg("MB"),
        py::arg("NPW"), py::arg("NT"), py::arg("ST"), py::arg("stream"), py::kw_only(),
        py::arg("pdl") = py::none(),
        "C bf16 [M,N] = diag(sc) q e4m3 [M,K] x W^T (sm_89+), config splatted after N.");
  }
  m.def(
      "quant_act_fp8",
      [](ptr a, ptr q, ptr sc, int M, int K, ptr stream, std::optional<bool> pdl,
         const std::string& order) {
        const r4d::ActOrder o = order_arg(order);
        launch("quant_act_fp8", stream, [&](r4d::stream_t s) {
          return r4d::quant_act_fp8(cp(a), mp(q), mp(sc), M, K, o, s, pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("q"), py::arg("sc"), py::arg("M"), py::arg("K"), py::arg("stream"),
      py::kw_only(), py::arg("pdl") = py::none(), py::arg("order") = "natural",
      "q e4m3 [M,K], sc f32 [M] = amax/448 per row of A bf16 [M,K]; q in order (as quant_act).");
  m.def(
      "gemm",
      [](ptr a, ptr wq, ptr wsz, ptr c, int M, int K, int N, ptr stream, std::optional<bool> pdl,
         const std::string& dtype) {
        const r4d::Dtype d = dtype_arg(dtype);
        launch("gemm", stream, [&](r4d::stream_t s) {
          return r4d::gemm(cp(a), cp(wq), cp(wsz), mp(c), M, K, N, d, s, pdl_arg(pdl));
        });
      },
      py::arg("a"), py::arg("wq"), py::arg("wsz"), py::arg("c"), py::arg("M"), py::arg("K"),
      py::arg("N"), py::arg("stream"), py::kw_only(), py::arg("pdl") = py::none(),
      py::arg("dtype") = "w4a16",
      "Automatic: A bf16 [M,K]; the table's config. dtype 'w4a16' (int4 weight): w4a8 above A8_M "
      "rows; 'w4a8fp8' / 'mxfp4a8fp8': quant_act_fp8 then the fp8 GEMM (raises where the table "
      "has no row: the caller takes another path).");
  m.def(
      "dtype_supported",
      [](const std::string& dtype, int device) {
        return r4d::dtype_supported(dtype_arg(dtype), device);
      },
      py::arg("dtype"), py::arg("device") = 0,
      "Whether the registered device can run dtype in this build (fp8 dtypes: sm_89+); False "
      "before init(device).");

  m.def(
      "init",
      [](int device) {
        const auto st = r4d::init(device);
        if (st != r4d::Status::ok)
          throw std::runtime_error("r4d.init: " + std::string(r4d::to_string(st)));
      },
      py::arg("device") = 0, "Allocate and zero the device's workspace (outside graph capture).");
  m.def("release", &r4d::release, py::arg("device") = 0);
  m.def("pdl_supported", &r4d::pdl_supported, py::arg("device") = 0,
        "Whether launches on the device can use programmatic dependent launch (compute capability "
        ">= 9.0 and kernels compiled for sm_90+); False before init(device).");
  m.def("workspace_bytes_required", &r4d::workspace_bytes_required);
  m.def("has_kernels", &r4d::has_kernels);
  m.def(
      "compiled_configs",
      [](const std::string& dtype) {
        py::list out;
        for (const auto& c : r4d::compiled_configs(dtype_arg(dtype))) out.append(config_tuple(c));
        return out;
      },
      py::arg("dtype") = "w4a16",
      "The compiled-in configs of dtype, as config_for returns them (both generations).");
  m.def(
      "has_generation",
      [](const std::string& gen) { return r4d::has_generation(generation_arg(gen)); },
      py::arg("gen"),
      "Whether this build compiles the table rows of the generation ('mma_sync', 'sm90a').");
  m.def(
      "table",
      [](const std::string& dtype) { return dict_from_table(r4d::table(dtype_arg(dtype))); },
      py::arg("dtype") = "w4a16", "The compiled-in table in the seeds' _CFG shape.");
  m.def("table_info", [] {
    const auto t = r4d::table_info();
    py::dict d;
    d["header"] = std::string(t.header);
    d["run_uuid"] = std::string(t.run_uuid);
    d["device"] = std::string(t.device);
    d["run_date"] = std::string(t.run_date);
    return d;
  });
  m.def("stats", [] {
    const auto s = r4d::stats();
    py::dict d;
    d["lookups"] = s.lookups;
    d["hits"] = s.hits;
    d["unknown_shape"] = s.unknown_shape;
    d["m_out_of_range"] = s.m_out_of_range;
    d["invalid_config"] = s.invalid_config;
    d["launches"] = s.launches;
    d["pdl_launches"] = s.pdl_launches;
    d["refused"] = s.refused;
    d["not_compiled"] = s.not_compiled;
    d["not_initialised"] = s.not_initialised;
    d["pdl_unsupported"] = s.pdl_unsupported;
    return d;
  });
  m.def("reset_stats", &r4d::reset_stats);

  // The seed's clip-search int4 quantiser (quant/int4.hpp; bit-identical to the seed's torch code
  // on its fixtures, docs/QUANT.md): W [N, K] float -> (q int8 [N, K], scale f32 [N, K/group]).
  m.def(
      "quantize",
      [](py::array_t<float, py::array::c_style | py::array::forcecast> w, int group,
         int clip_steps) {
        if (w.ndim() != 2) throw py::value_error("r4d.quantize: W must be [N, K]");
        const std::int64_t n = w.shape(0), k = w.shape(1);
        if (group < 1 || k % group != 0)
          throw py::value_error("r4d.quantize: K must be a multiple of the group");
        r4::quant::Int4Quantized out;
        {
          py::gil_scoped_release nogil;
          out = r4::quant::quantize_int4(
              std::span<const float>(w.data(), static_cast<std::size_t>(n * k)), n, k, group,
              clip_steps);
        }
        py::array_t<std::int8_t> q({n, k});
        py::array_t<float> sc({n, k / group});
        std::memcpy(q.mutable_data(), out.q.data(), out.q.size());
        std::memcpy(sc.mutable_data(), out.scale.data(), out.scale.size() * sizeof(float));
        return py::make_tuple(q, sc);
      },
      py::arg("W"), py::arg("group") = 128, py::arg("clip_steps") = 20);

  m.def(
      "pack",
      [](py::array_t<std::int8_t, py::array::c_style | py::array::forcecast> q,
         py::array_t<float, py::array::c_style | py::array::forcecast> scale,
         const std::string& layout, int group) {
        if (layout != "sm80")
          throw py::value_error("r4d.pack: layout '" + layout +
                                "' is not in this build (only 'sm80')");
        if (q.ndim() != 2) throw py::value_error("r4d.pack: q must be [N, K]");
        const std::int64_t n = q.shape(0), k = q.shape(1);
        if (group <= 0 || k % group != 0 || scale.ndim() != 2 || scale.shape(0) != n ||
            scale.shape(1) != k / group)
          throw py::value_error("r4d.pack: scale must be [N, K/group]");
        r4::quant::Packed p;
        try {
          p = r4::quant::pack_sm80(
              std::span<const std::int8_t>(q.data(), static_cast<std::size_t>(q.size())),
              std::span<const float>(scale.data(), static_cast<std::size_t>(scale.size())), n, k,
              group);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
        py::array_t<std::uint32_t> wq(static_cast<py::ssize_t>(p.wq.size()));
        py::array_t<std::uint32_t> wsz(static_cast<py::ssize_t>(p.wsz.size()));
        std::copy(p.wq.begin(), p.wq.end(), wq.mutable_data());
        std::copy(p.wsz.begin(), p.wsz.end(), wsz.mutable_data());
        return py::make_tuple(wq, wsz);
      },
      py::arg("q"), py::arg("scale"), py::arg("layout") = "sm80", py::arg("group") = 128,
      "(q int8 [N,K] in -8..7, scale f32 [N,K/group]) -> (wq uint32 [N*K/8], wsz uint32 "
      "[N/16*K/group*16]) in the named layout.");

  m.def(
      "pack_mx",
      [](py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> codes,
         py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast> e8m0) {
        if (codes.ndim() != 2 || e8m0.ndim() != 2 || e8m0.shape(0) != codes.shape(0))
          throw py::value_error(
              "r4d.pack_mx: codes must be [N, K] (one e2m1 code per byte) or [N, K/2] (two per "
              "byte, low nibble the even k) and e8m0 [N, K/32]");
        const std::int64_t n = codes.shape(0), k = e8m0.shape(1) * 32;
        // One code per byte ([N, K]) is packed two per byte first; [N, K/2] is taken as it is.
        std::vector<std::uint8_t> pairs;
        if (codes.shape(1) == k) {
          pairs.resize(static_cast<std::size_t>(n * k / 2));
          const std::uint8_t* c = codes.data();
          for (std::size_t i = 0; i < pairs.size(); ++i) {
            if ((c[2 * i] | c[2 * i + 1]) > 15)
              throw py::value_error("r4d.pack_mx: an e2m1 code above 15 in codes [N, K]");
            pairs[i] = static_cast<std::uint8_t>(c[2 * i] | (c[2 * i + 1] << 4));
          }
        } else if (codes.shape(1) * 2 == k) {
          pairs.assign(codes.data(), codes.data() + codes.size());
        } else {
          throw py::value_error("r4d.pack_mx: codes must be [N, K] or [N, K/2] for e8m0 [N, K/32]");
        }
        r4::quant::Packed p;
        try {
          p = r4::quant::pack_mx_sm89(
              std::span<const std::uint8_t>(pairs.data(), pairs.size()),
              std::span<const std::uint8_t>(e8m0.data(), static_cast<std::size_t>(e8m0.size())), n,
              k);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
        py::array_t<std::uint32_t> wq(static_cast<py::ssize_t>(p.wq.size()));
        py::array_t<std::uint32_t> wsz(static_cast<py::ssize_t>(p.wsz.size()));
        std::copy(p.wq.begin(), p.wq.end(), wq.mutable_data());
        std::copy(p.wsz.begin(), p.wsz.end(), wsz.mutable_data());
        return py::make_tuple(wq, wsz);
      },
      py::arg("codes"), py::arg("e8m0"),
      "MXFP4 (codes uint8 [N,K] one e2m1 code per byte, or [N,K/2] two per byte with the low "
      "nibble the even k as `r4tune quant mxfp4` writes; e8m0 uint8 [N,K/32]) -> (wq uint32, wsz "
      "uint32) in the mx_sm89 layout.");
}
