// r4d_bench chain: times a chain of r4d::gemm calls, each reading the previous call's output, as
// one decode step, plainly and with programmatic dependent launch (PDL), the way the sweep times
// its steps (tuner/measure/step_chain.hpp) and this bench times single rows (r4d_bench.cpp):
//
// - the chain: the given shapes (default: the compiled-in table's shapes in table order) at one M;
//   link l reads link l-1's bf16 output buffer as its [M, K] activations (link 0 reads the last
//   link's, so a replay of the pool is one long chain). Where K > the previous N, the tail of the
//   activations is what the buffer held before (finite values), as in the sweep's chains; every
//   launch still waits for the previous one. Through r4d::gemm: the table's config, and above
//   a8_m rows quant_act + gemm_w4a8_nt (two launches);
// - a pool of copies of every link's weights, >= 4x L2 in all, one step per copy in a graph, so
//   each launch reads its weight from DRAM; a sample is one replay / copies = us per step;
// - the plain graph and the PDL graph sampled in lockstep, `rounds` rounds in a fresh random
//   order each; medians.
//
// Before timing, the chain runs once eagerly each way from the same buffer contents and every
// link's output is compared bit for bit: PDL changes when a kernel starts, never what it computes
// (the GPU test tests/r4d/graph_gpu_test.cpp also checks them against the references).
#include "chain_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/timing.hpp"
#include "r4d/r4d.hpp"
#include "tuner/measure/graph_timer.hpp"

namespace r4d::bench {
namespace {

using r4::gpu::DeviceBuffer;
namespace rk = r4::kernels;

constexpr int kRows = 64;  // buffers hold the largest M

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> out;
  std::stringstream list(s);
  for (std::string item; std::getline(list, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

// "3072x5120,5120x2048" -> {(3072, 5120), (5120, 2048)}; empty on a malformed item.
std::vector<std::pair<int, int>> parse_shapes(const std::string& s) {
  std::vector<std::pair<int, int>> out;
  std::stringstream list(s);
  for (std::string item; std::getline(list, item, ',');) {
    const auto x = item.find('x');
    if (x == std::string::npos) return {};
    out.emplace_back(std::atoi(item.substr(0, x).c_str()), std::atoi(item.substr(x + 1).c_str()));
    if (out.back().first <= 0 || out.back().second <= 0) return {};
  }
  return out;
}

std::vector<std::pair<int, int>> table_shapes() {
  std::vector<std::pair<int, int>> out;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8})
    for (const auto& r : table(d))
      if (std::find(out.begin(), out.end(), std::make_pair(r.n, r.k)) == out.end())
        out.emplace_back(r.n, r.k);
  return out;
}

// 1, 8 and the top M of every w4a16 band (capped at 64).
std::vector<int> default_ms() {
  std::set<int> ms{1, 8};
  for (const auto& r : table(Dtype::w4a16)) ms.insert(std::min(r.m_limit, GEMM_W4_MAX_M));
  return {ms.begin(), ms.end()};
}

struct Chain {
  std::vector<std::pair<int, int>> shapes;
  int copies = 0;
  std::vector<std::vector<rk::W4Weights>> weights;  // [link][copy]
  std::vector<DeviceBuffer> store, out;             // out[link]: [64, max dim] bf16

  void* out_ptr(std::size_t l) const { return reinterpret_cast<void*>(out[l].get()); }

  // Enqueues one step on weight copy `c`; false at the first refusal (`why` says which).
  bool enqueue(int m, int c, Pdl pdl, stream_t s, std::string& why) const {
    for (std::size_t l = 0; l < shapes.size(); ++l) {
      const auto [n, k] = shapes[l];
      const auto& w = weights[l][static_cast<std::size_t>(c)];
      const void* in = out_ptr(l == 0 ? shapes.size() - 1 : l - 1);
      const Status st = gemm(in, reinterpret_cast<const void*>(w.wq),
                             reinterpret_cast<const void*>(w.wsz), out_ptr(l), m, k, n, s, pdl);
      if (st != Status::ok) {
        why = std::to_string(n) + "x" + std::to_string(k) + " at M=" + std::to_string(m) + ": " +
              std::string(to_string(st));
        return false;
      }
    }
    return true;
  }
};

}  // namespace

int run_chain(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  const std::vector<int> ms = argc > 2 ? parse_ints(argv[2]) : default_ms();
  const auto shapes = argc > 3 ? parse_shapes(argv[3]) : table_shapes();
  if (shapes.empty()) {
    std::printf("r4d_bench chain: no shapes (give them as NxK,NxK,...)\n");
    return 2;
  }
  for (int m : ms)
    if (m < 1 || m > GEMM_W4_MAX_M) {
      std::printf("r4d_bench chain: M=%d outside 1..%d\n", m, GEMM_W4_MAX_M);
      return 2;
    }
  auto backend = r4::gpu::make_cuda_backend();
  if (backend->device_count() == 0) {
    std::printf("r4d_bench: no CUDA device (%s); nothing timed\n", backend->status().c_str());
    return 0;
  }
  auto ctx = backend->open(0);
  const auto& info = ctx->info();
  auto stream = ctx->create_stream();
  const stream_t rs = stream_from_handle(stream->native());
  // After the context: its device buffers must be freed before the context goes (declared later,
  // destroyed first; the other order segfaulted at exit on the H200, 2026-11-30).
  Chain ch;
  ch.shapes = shapes;
  if (init(0) != Status::ok) {
    std::printf("r4d_bench: r4d::init failed\n");
    return 1;
  }
  const bool pdl = pdl_supported(0);

  // The pool: `copies` copies of every link's weights, >= 4x L2 in all. Scales about
  // 1 / (4.6 sqrt(K)) keep the activations' magnitude from link to link (the sweep's chains do
  // the same, tuner/measure/step_chain.cpp), so a long replayed chain stays finite.
  std::int64_t step_bytes = 0, max_dim = 0;
  for (auto [n, k] : ch.shapes) {
    step_bytes += rk::weight_bytes(n, k);
    max_dim = std::max<std::int64_t>({max_dim, n, k});
  }
  ch.copies = rk::pool_size(step_bytes, info.l2_bytes, 4);
  ch.weights.resize(ch.shapes.size());
  // Room for every buffer first: `q` and `z` below are references into ch.store, which a
  // reallocation would leave dangling (session 10 found this pattern behind an intermittent
  // CUDA_ERROR_INVALID_VALUE in the PDL test).
  ch.store.reserve(ch.store.size() + 2 * ch.shapes.size() * static_cast<std::size_t>(ch.copies));
  for (std::size_t l = 0; l < ch.shapes.size(); ++l) {
    const auto [n, k] = ch.shapes[l];
    const float sc = 1.0f / (4.6f * std::sqrt(static_cast<float>(k)));
    const auto p = rk::random_packed_weights(r4::quant::Layout::sm80, n, k,
                                             100u + static_cast<unsigned>(l), 0.5f * sc, 1.5f * sc);
    const auto qb = p.wq.size() * 4, sb = p.wsz.size() * 4;
    for (int c = 0; c < ch.copies; ++c) {
      auto& q = ch.store.emplace_back(*ctx, qb);
      auto& z = ch.store.emplace_back(*ctx, sb);
      ctx->copy_to_device(q.get(), p.wq.data(), qb);
      ctx->copy_to_device(z.get(), p.wsz.data(), sb);
      ch.weights[l].push_back({q.get(), z.get()});
    }
    ch.out.emplace_back(*ctx, static_cast<std::size_t>(kRows * max_dim) * 2);
  }
  const auto reset_outputs = [&] {
    for (auto& b : ch.out) ctx->memset8(b.get(), 0x3C, b.bytes(), *stream);  // ~0.0115 as bf16
    stream->synchronize();
  };

  std::printf("device %s (%s), L2 %lld MiB; tables %s\n", info.name.c_str(), info.arch.name.c_str(),
              static_cast<long long>(info.l2_bytes >> 20),
              std::string(table_info().header).c_str());
  std::printf("chain of %zu r4d::gemm calls:", ch.shapes.size());
  for (auto [n, k] : ch.shapes) std::printf(" %dx%d", n, k);
  std::printf(
      "\npool %d copies (%.0f MiB of weights, %.1fx L2); %d rounds, plain and PDL in "
      "lockstep; PDL on this device: %s\n",
      ch.copies, static_cast<double>(step_bytes * ch.copies) / (1 << 20),
      static_cast<double>(step_bytes * ch.copies) / static_cast<double>(info.l2_bytes), rounds,
      pdl ? "yes" : "no (plain only)");
  std::printf("%3s %8s %10s %10s %9s %13s  %s\n", "M", "launches", "plain_us", "pdl_us",
              "pdl/plain", "saved_us/gap", "outputs");

  std::mt19937 order_rng(11);
  std::vector<double> ratios;
  for (int m : ms) {
    int launches = 0;
    for (auto [n, k] : ch.shapes)
      launches += m > a8_m() && config_for(n, k, m, Dtype::w4a8) ? 2 : 1;
    // Bit-identity, eagerly on copy 0, from the same buffer contents.
    std::string why;
    std::vector<std::vector<std::uint16_t>> got[2];
    for (int way = 0; way < (pdl ? 2 : 1); ++way) {
      reset_outputs();
      if (!ch.enqueue(m, 0, way == 1 ? Pdl::on : Pdl::off, rs, why)) break;
      stream->synchronize();
      for (std::size_t l = 0; l < ch.shapes.size(); ++l) {
        auto& v = got[way].emplace_back(static_cast<std::size_t>(m) * ch.shapes[l].first);
        ctx->copy_to_host(v.data(), ch.out[l].get(), v.size() * 2);
      }
    }
    if (!why.empty()) {
      std::printf("%3d  r4d refused %s\n", m, why.c_str());
      continue;
    }
    std::string identical = pdl ? "bit-identical" : "-";
    if (pdl)
      for (std::size_t l = 0; l < ch.shapes.size(); ++l)
        if (got[0][l] != got[1][l]) {
          identical = "DIFFER at link " + std::to_string(l);
          break;
        }

    using Timer = r4::measure::GraphTimer;
    const auto timer = [&](Pdl p) {
      return std::make_unique<Timer>(*ctx, *stream, ch.copies, [&, p](int i, r4::gpu::Stream& st) {
        std::string w;
        if (!ch.enqueue(m, i, p, stream_from_handle(st.native()), w) && why.empty()) why = w;
      });
    };
    std::vector<std::unique_ptr<Timer>> timers;
    timers.push_back(timer(Pdl::off));
    if (pdl) timers.push_back(timer(Pdl::on));
    if (!why.empty()) {
      std::printf("%3d  r4d refused inside capture: %s\n", m, why.c_str());
      return 1;
    }
    for (auto& t : timers) t->warm_up(1);
    std::vector<Timer*> order;
    for (auto& t : timers) order.push_back(t.get());
    std::vector<double> samples[2];
    for (int r = 0; r < rounds; ++r) {
      std::shuffle(order.begin(), order.end(), order_rng);
      for (auto* t : order) t->enqueue_timed();
      for (auto* t : order) samples[t == timers[0].get() ? 0 : 1].push_back(t->collect_us());
    }
    const double plain_us = median(samples[0]);
    if (!pdl) {
      std::printf("%3d %8d %10.2f %10s %9s %13s  %s\n", m, launches, plain_us, "-", "-", "-",
                  identical.c_str());
      continue;
    }
    const double pdl_us = median(samples[1]);
    ratios.push_back(pdl_us / plain_us);
    // Gaps: kernel boundaries per step (the first launch of a step follows the previous step's
    // last inside the same graph, so a step of L launches has L of them).
    std::printf("%3d %8d %10.2f %10.2f %9.3f %13.2f  %s\n", m, launches, plain_us, pdl_us,
                pdl_us / plain_us, (plain_us - pdl_us) / launches, identical.c_str());
    std::fflush(stdout);
    if (identical != "bit-identical") return 1;
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    std::printf("pdl/plain over %zu M: min %.3f median %.3f max %.3f\n", ratios.size(),
                ratios.front(), ratios[ratios.size() / 2], ratios.back());
  }
  return 0;
}

}  // namespace r4d::bench
