// Google Benchmark: the int4 clip-search quantiser on the seed's largest drafter shape,
// gate_up (N, K) = (17408, 5120), bf16 input, group 128, 20 clip steps, all cores.
// Counters: input GB/s (bf16 bytes read) and weights/s. Results in docs/PERF.md "quant".
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <random>

#include "quant/int4.hpp"
#include "quant/mxfp4.hpp"
#include "quant/numeric.hpp"
#include "quant/pack.hpp"
#include "quant/parallel.hpp"

namespace {

// CPU seconds of the whole process (all threads): on a shared box the wall time depends on the
// neighbours, CPU time per iteration does not, and CPU time / threads is the uncontended wall.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

std::vector<std::uint16_t> bf16_gaussian(std::int64_t n, std::int64_t k) {
  std::vector<std::uint16_t> w(static_cast<std::size_t>(n * k));
  r4::quant::parallel_for(n, [&](std::int64_t r0, std::int64_t r1) {
    std::mt19937 rng(static_cast<unsigned>(r0));
    std::normal_distribution<float> nd(0.0F, 0.02F);
    for (auto i = static_cast<std::size_t>(r0 * k); i < static_cast<std::size_t>(r1 * k); ++i)
      w[i] = r4::quant::f32_to_bf16_bits(nd(rng));
  });
  return w;
}

void BM_QuantizeInt4(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::int64_t k = state.range(1);
  const auto w = bf16_gaussian(n, k);
  const r4::quant::MatrixView m{reinterpret_cast<const std::byte*>(w.data()),
                                r4::quant::DType::bf16, n, k};
  double rel = 0;
  const double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    auto r = r4::quant::quantize_int4(m, 128, 20);
    rel = r.relative_rms();
    benchmark::DoNotOptimize(r.q.data());
  }
  const auto iters = static_cast<double>(state.iterations());
  state.counters["GB/s_in"] =
      benchmark::Counter(iters * static_cast<double>(n * k * 2) / 1e9, benchmark::Counter::kIsRate);
  state.counters["weights/s"] =
      benchmark::Counter(iters * static_cast<double>(n * k), benchmark::Counter::kIsRate);
  state.counters["rel_rms"] = rel;
  state.counters["threads"] = r4::quant::worker_count();
  state.counters["cpu_s/iter"] = (process_cpu_seconds() - cpu0) / iters;
}
BENCHMARK(BM_QuantizeInt4)
    ->Args({17408, 5120})
    ->Unit(benchmark::kSecond)
    ->UseRealTime()
    ->Iterations(2);

void BM_PackGfx12(benchmark::State& state) {
  const std::int64_t n = 17408;
  const std::int64_t k = 5120;
  std::vector<std::int8_t> q(static_cast<std::size_t>(n * k));
  for (std::size_t i = 0; i < q.size(); ++i)
    q[i] = static_cast<std::int8_t>(static_cast<int>(i % 16) - 8);
  const std::vector<float> s(static_cast<std::size_t>(n * k / 128), 0.01F);
  for (auto _ : state) {
    auto p = r4::quant::pack(r4::quant::Layout::gfx12, q, s, n, k, 128);
    benchmark::DoNotOptimize(p.wq.data());
  }
  state.counters["weights/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n * k),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PackGfx12)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_QuantMxfp4(benchmark::State& state) {
  const std::int64_t n = 4096;
  const std::int64_t k = 5120;
  std::vector<float> w(static_cast<std::size_t>(n * k));
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0F, 0.02F);
  for (auto& x : w) x = nd(rng);
  for (auto _ : state) {
    auto r = r4::quant::quant_mxfp4(w, n, k, r4::quant::ExpRule::mse);
    benchmark::DoNotOptimize(r.packed.data());
  }
  state.counters["weights/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(n * k),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_QuantMxfp4)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
