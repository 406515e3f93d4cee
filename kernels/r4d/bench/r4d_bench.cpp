// r4d_bench: times table configs launched through r4d (nvcc, ahead of time) against the SAME
// config compiled the tuner's way (NVRTC through kernels/family.hpp), in the same process, the
// way the tuner takes the times it stores (its finalists' re-measurement, tuner/tune/race.cpp):
// a pool of copies >= 4x L2, one launch per copy in a graph (measure/graph_timer.hpp), and the
// graphs of r4d, the NVRTC build and the shape's cuBLASLt bf16 and block-fp8 baselines sampled
// in lockstep, `rounds` rounds in a fresh random order each. Medians and the ratio r4d / tuner
// (target: within 3%). A w4a8 row is timed as the tuner times it
// (tuner/worker/device_session.cpp): quant_act of the bf16 activations, then the GEMM. A row of
// the sm90a generation is compiled by NVRTC for sm_90a (kernels::compile_request with the row's
// generation and ST) and launched with the sm90a geometry on both sides; r4d launches it through
// the Config overloads, as r4d::gemm does. The fp8-activation rows (w4a8fp8, mxfp4a8fp8; sm_89+)
// likewise after quant_act_fp8, in the order the config reads (act_order: an sm90a MXFP4 config
// reads ActOrder::sm90a_mx).
//
// Why lockstep and not each graph replayed back to back: the first version of this bench did
// that, and its times came out up to 8% below the sweep's stored medians on the small shapes
// (H200, 2026-11-30), while r4d and the NVRTC build agreed within 1%; the tuner had seen the same
// effect (a graph sampled back to back with itself ran 3-4% faster, docs/TUNER.md).
//
// With a database (the sweep the tables were emitted from, found by the tables' run uuid), the
// winner's stored median is printed too, with r4d / stored: the same comparison across two
// processes (and, for the committed tables, across device calls), so it also carries the
// sweep's run-to-run spread (docs/TUNER.md).
//
// usage: r4d_bench [w4a16|w4a8|w4a8fp8|mxfp4a8fp8|all] [rounds] [band limits, e.g. 16,64
//          (default: all)] [DB]
//        r4d_bench chain [rounds] [M list, e.g. 1,8,64] [shapes, e.g. 3072x5120,5120x2048]
//          (a decode step through r4d::gemm, plain and with PDL: bench/chain_bench.cpp)
// (exits 0 with a note when there is no GPU)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chain_bench.hpp"
#include "db/store.hpp"
#include "kernels/baseline.hpp"
#include "kernels/family.hpp"
#include "kernels/timing.hpp"
#include "r4d/r4d.hpp"
#include "tuner/measure/graph_timer.hpp"

namespace {

using r4::gpu::DeviceBuffer;
namespace rk = r4::kernels;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Row {
  r4d::Dtype dtype;
  r4d_table_row row;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "chain") return r4d::bench::run_chain(argc - 1, argv + 1);
  const std::string which = argc > 1 ? argv[1] : "all";
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 15;
  std::vector<int> bands;
  if (argc > 3) {
    std::stringstream list(argv[3]);
    for (std::string item; std::getline(list, item, ',');) bands.push_back(std::atoi(item.c_str()));
  }
  // The stored winners of the tables' run, keyed by kernel, N, K, band limit.
  std::vector<r4::db::WinnerRow> stored;
  if (argc > 4) {
    try {
      const auto store = r4::db::Store::open_read_only(argv[4]);
      stored = store.winners(store.resolve_run(std::string(r4d::table_info().run_uuid)).id);
    } catch (const std::exception& e) {
      // Not the tables' database (or none at that path): the r4d / NVRTC comparison still runs.
      std::printf("r4d_bench: %s: %s; no stored medians\n", argv[4], e.what());
    }
  }
  const auto stored_us = [&](const char* kernel, int n, int k, int band) {
    for (const auto& w : stored)
      if (w.kernel == kernel && w.n == n && w.k == k && w.band_limit == band) return w.median_us;
    return 0.0;
  };
  auto backend = r4::gpu::make_cuda_backend();
  if (backend->device_count() == 0) {
    std::printf("r4d_bench: no CUDA device (%s); nothing timed\n", backend->status().c_str());
    return 0;
  }
  auto ctx = backend->open(0);
  const auto& info = ctx->info();
  auto stream = ctx->create_stream();
  const r4d::stream_t rs = r4d::stream_from_handle(stream->native());
  if (r4d::init(0) != r4d::Status::ok) {
    std::printf("r4d_bench: r4d::init failed\n");
    return 1;
  }
  std::printf("device %s (%s), L2 %lld MiB; tables %s\n", info.name.c_str(), info.arch.name.c_str(),
              static_cast<long long>(info.l2_bytes >> 20),
              std::string(r4d::table_info().header).c_str());
  std::printf("%-6s %6s %6s %3s  %-24s %10s %10s %7s", "dtype", "N", "K", "M", "config", "r4d_us",
              "nvrtc_us", "ratio");
  if (!stored.empty()) std::printf(" %10s %7s", "sweep_us", "r4d/sw");
  std::printf("\n");

  std::vector<Row> rows;
  const bool fp8_ok = rk::has_fp8_mma(info.arch);
  for (r4d::Dtype d :
       {r4d::Dtype::w4a16, r4d::Dtype::w4a8, r4d::Dtype::w4a8fp8, r4d::Dtype::mxfp4a8fp8})
    if ((which == "all" || which == r4d::to_string(d)) &&
        (fp8_ok || d == r4d::Dtype::w4a16 || d == r4d::Dtype::w4a8))
      for (const auto& r : r4d::table(d))
        if (bands.empty() || std::find(bands.begin(), bands.end(), r.m_limit) != bands.end())
          rows.push_back({d, r});

  std::mt19937 rng(7);
  std::vector<double> ratios, ratios_stored;
  // quant_act the tuner's way, for the w4a8 rows (config-free: one compile).
  const auto qa_res =
      backend->compile(rk::compile_request(rk::KernelId::quant_act, rk::Config{}, info.arch));
  if (!qa_res.ok) {
    std::printf("nvrtc compile failed for quant_act\n%s\n", qa_res.log.c_str());
    return 1;
  }
  auto qa_mod = ctx->load(qa_res.binary);
  auto& qa_kern = qa_mod->kernel(std::string(rk::name(rk::KernelId::quant_act)));
  // and quant_act_fp8 for the fp8-activation rows (sm_89+).
  decltype(qa_mod) qa8_mod;
  if (fp8_ok) {
    const auto r8 = backend->compile(rk::quant_act_fp8_compile_request(info.arch));
    if (!r8.ok) {
      std::printf("nvrtc compile failed for quant_act_fp8\n%s\n", r8.log.c_str());
      return 1;
    }
    qa8_mod = ctx->load(r8.binary);
  }
  // The baselines the sweep samples alongside (absent where cuBLASLt is not installed).
  std::vector<std::unique_ptr<rk::Baseline>> baselines;
  for (auto kind : {rk::BaselineKind::bf16, rk::BaselineKind::fp8_block}) {
    auto b = rk::make_cublaslt_baseline(kind, *ctx, *stream);
    if (b->unavailable_reason().empty()) baselines.push_back(std::move(b));
  }
  std::mt19937 order_rng(11);
  for (const Row& row : rows) {
    const auto& r = row.row;
    const int m = std::min(r.m_limit, r4d::GEMM_W4_MAX_M);
    const bool fp8 = row.dtype == r4d::Dtype::w4a8fp8 || row.dtype == r4d::Dtype::mxfp4a8fp8;
    const bool mx = row.dtype == r4d::Dtype::mxfp4a8fp8;
    const bool a8 = row.dtype == r4d::Dtype::w4a8 || fp8;
    const rk::KernelId id = mx                                 ? rk::KernelId::gemm_mxfp4a8fp8_nt
                            : row.dtype == r4d::Dtype::w4a8fp8 ? rk::KernelId::gemm_w4a8fp8_nt
                            : row.dtype == r4d::Dtype::w4a8    ? rk::KernelId::gemm_w4a8_nt
                                                               : rk::KernelId::gemm_w4a16_nt;
    const rk::Config kc{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st};
    const r4d::Config rc{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st};
    const rk::Shape shape{r.n, r.k, m};
    const auto wq_bytes = static_cast<std::size_t>(r.n) * r.k / 2;
    const auto wsz_bytes = static_cast<std::size_t>(r.n) * (r.k / 128) * 4;
    const int pool = rk::pool_size(rk::weight_bytes(r.n, r.k), info.l2_bytes, 4);

    // Pool: weights, activations and outputs per copy (random bytes; time does not depend on them,
    // but scales are kept finite: the high half of each scale dword is the -1032 constant).
    // w4a8: bf16 activations (0x3F80 = 1.0) quantised into q / sa by quant_act in the timed graph.
    std::vector<std::uint32_t> hw(wq_bytes / 4), hs(wsz_bytes / 4);
    for (auto& v : hw) v = static_cast<std::uint32_t>(rng());
    // MXFP4: e8m0 exponent bytes 127 (2^0) in place of the int4 scale dwords.
    for (auto& v : hs) v = mx ? 0x7F7F7F7Fu : 0xE4082000u;  // f16 scale 0.0078 low, -1032 high
    const std::size_t a_bytes = static_cast<std::size_t>(m) * r.k * 2;
    std::vector<std::uint16_t> ha(a_bytes / 2, a8 ? 0x3F80 : 0x2C00);
    std::vector<DeviceBuffer> wq, wsz, a, c, q, sa;
    for (int i = 0; i < pool; ++i) {
      wq.emplace_back(*ctx, wq_bytes);
      wsz.emplace_back(*ctx, wsz_bytes);
      a.emplace_back(*ctx, a_bytes);
      c.emplace_back(*ctx, static_cast<std::size_t>(m) * r.n * 2);
      q.emplace_back(*ctx, a8 ? static_cast<std::size_t>(m) * r.k : 16);
      sa.emplace_back(*ctx, static_cast<std::size_t>(m) * 4);
      ctx->copy_to_device(wq.back().get(), hw.data(), wq_bytes);
      ctx->copy_to_device(wsz.back().get(), hs.data(), wsz_bytes);
      ctx->copy_to_device(a.back().get(), ha.data(), a_bytes);
    }
    // The tuner's way: NVRTC compile of the same source and defines, launched via family.hpp.
    const auto res = backend->compile(rk::compile_request(id, kc, info.arch));
    if (!res.ok) {
      std::printf("nvrtc compile failed for %s\n%s\n", rk::to_string(kc).c_str(), res.log.c_str());
      return 1;
    }
    auto mod = ctx->load(res.binary);
    auto& kern = mod->kernel(std::string(rk::name(id)));
    const std::size_t ws_bytes = std::max<std::size_t>(rk::workspace_bytes(id, kc, shape), 256);
    DeviceBuffer ws(*ctx, ws_bytes);
    ctx->memset8(ws.get(), 0, ws_bytes, *stream);
    stream->synchronize();

    r4d::Status refused = r4d::Status::ok;  // the first refusal, if any
    auto via_r4d = [&](int i) {
      const auto p = [&](const DeviceBuffer& b) { return reinterpret_cast<void*>(b.get()); };
      r4d::Status st = r4d::Status::ok;
      // Launched as the tuner times and stores them: plain, except the GEMM of a quantiser +
      // GEMM pair, under PDL where the device has it (kernels::a8_gemm_options; r4d's
      // Pdl::automatic is the same rule). r4d's default for every launch (Pdl::automatic) is PDL
      // on an H200: with it this bench ran r4d 3-14% under the tuner's build on the sm90a and ldg
      // rows of the three-generation tables (2026-12-01, docs/PERF.md "r4d"), i.e. it compared
      // launches overlapped with the previous GEMM with plain ones. A decode step with PDL is
      // bench/chain_bench.cpp's.
      constexpr auto plain = r4d::Pdl::off;
      if (fp8) {
        st = r4d::quant_act_fp8(p(a[i]), p(q[i]), p(sa[i]), m, r.k, r4d::act_order(row.dtype, rc),
                                rs, plain);
        if (st == r4d::Status::ok)
          st = (mx ? r4d::gemm_mxfp4a8fp8_nt : r4d::gemm_w4a8fp8_nt)(
              p(q[i]), p(sa[i]), p(wq[i]), p(wsz[i]), p(c[i]), m, r.k, r.n, rc, rs,
              r4d::Pdl::automatic);
      } else if (a8) {
        st = r4d::quant_act(p(a[i]), p(q[i]), p(sa[i]), m, r.k,
                            r4d::act_order(r4d::Dtype::w4a8, rc), rs, plain);
        if (st == r4d::Status::ok)
          st = r4d::gemm_w4a8_nt(p(q[i]), p(sa[i]), p(wq[i]), p(wsz[i]), p(c[i]), m, r.k, r.n, rc,
                                 rs, r4d::Pdl::automatic);
      } else {
        st = r4d::gemm_w4a16_nt(p(a[i]), p(wq[i]), p(wsz[i]), p(c[i]), m, r.k, r.n, rc, rs, plain);
      }
      if (refused == r4d::Status::ok) refused = st;
    };
    auto via_nvrtc = [&](int i) {
      const rk::W4Weights w{wq[i].get(), wsz[i].get()};
      if (fp8) {
        rk::launch_quant_act_fp8(qa8_mod->kernel("quant_act_fp8"), shape, a[i].get(), q[i].get(),
                                 sa[i].get(), rk::act_order(id, kc), *stream);
        rk::launch_gemm_a8(id, kern, kc, info.arch, shape, q[i].get(), sa[i].get(), w, c[i].get(),
                           ws.get(), *stream, rk::a8_gemm_options(info.arch, kc, m));
      } else if (a8) {
        rk::launch_quant_act(qa_kern, shape, a[i].get(), q[i].get(), sa[i].get(),
                             rk::act_order(id, kc), *stream);
        rk::launch_gemm_w4a8(kern, kc, info.arch, shape, q[i].get(), sa[i].get(), w, c[i].get(),
                             ws.get(), *stream, rk::a8_gemm_options(info.arch, kc, m));
      } else
        rk::launch_gemm_w4a16(kern, kc, info.arch, shape, a[i].get(), w, c[i].get(), ws.get(),
                              *stream);
    };
    // Graphs over the whole pool (captured once, uploaded), the baselines prepared as the worker
    // prepares them (algorithm chosen by a short cold timing), then lockstep rounds.
    using Timer = r4::measure::GraphTimer;
    Timer g_r4d(*ctx, *stream, pool, [&](int i, r4::gpu::Stream&) { via_r4d(i); });
    Timer g_rtc(*ctx, *stream, pool, [&](int i, r4::gpu::Stream&) { via_nvrtc(i); });
    std::vector<std::unique_ptr<rk::PreparedBaseline>> prepared;
    std::vector<std::unique_ptr<Timer>> base_timers;
    for (auto& b : baselines) {
      std::string why;
      auto pb = b->prepare(shape, rk::TimingSpec{1, 3, 24}, why);
      if (!pb) continue;
      auto* raw = pb.get();
      base_timers.push_back(
          std::make_unique<Timer>(*ctx, *stream, raw->copies(),
                                  [raw](int i, r4::gpu::Stream& st) { raw->enqueue(i, st); }));
      prepared.push_back(std::move(pb));
    }
    std::vector<Timer*> timers{&g_r4d, &g_rtc};
    for (auto& t : base_timers) timers.push_back(t.get());
    for (auto* t : timers)
      if (!t->uploaded()) t->warm_up(1);  // the upload happens at the first replay otherwise
    std::vector<double> t_r4d, t_rtc;
    for (int k = 0; k < rounds; ++k) {
      std::shuffle(timers.begin(), timers.end(), order_rng);
      for (auto* t : timers) t->enqueue_timed();
      for (auto* t : timers) {
        const double us = t->collect_us();
        if (t == &g_r4d) t_r4d.push_back(us);
        if (t == &g_rtc) t_rtc.push_back(us);
      }
    }
    if (refused != r4d::Status::ok) {
      std::printf("r4d refused %s: %s\n", rk::to_string(kc).c_str(),
                  std::string(r4d::to_string(refused)).c_str());
      return 1;
    }
    const double x = median(t_r4d), y = median(t_rtc);
    ratios.push_back(x / y);
    std::printf("%-6s %6d %6d %3d  %-24s %10.2f %10.2f %7.3f",
                std::string(r4d::to_string(row.dtype)).c_str(), r.n, r.k, m,
                rk::to_string(kc).c_str(), x, y, x / y);
    if (const double sw = stored_us(std::string(rk::name(id)).c_str(), r.n, r.k, r.m_limit);
        sw > 0) {
      ratios_stored.push_back(x / sw);
      std::printf(" %10.2f %7.3f", sw, x / sw);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    std::printf("ratio r4d/nvrtc over %zu rows: min %.3f median %.3f max %.3f\n", ratios.size(),
                ratios.front(), ratios[ratios.size() / 2], ratios.back());
  }
  if (!ratios_stored.empty()) {
    std::sort(ratios_stored.begin(), ratios_stored.end());
    std::printf("ratio r4d/sweep over %zu rows: min %.3f median %.3f max %.3f\n",
                ratios_stored.size(), ratios_stored.front(),
                ratios_stored[ratios_stored.size() / 2], ratios_stored.back());
  }
  return 0;
}
