#include "tuner/tune/summary.hpp"

#include <algorithm>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "tuner/tune/compile_pool.hpp"

namespace r4::tune {

using nlohmann::json;

void print_plan(const SweepContext& ctx, const Plan& plan,
                const std::optional<gpu::DeviceInfo>& device, gpu::Backend& backend) {
  const auto& spec = ctx.spec;
  std::size_t cached = 0;
  const std::string compiler = backend.compiler_version();
  for (const auto& u : plan.units)
    cached += ctx.store.find_compile(compile_key(u.request, compiler)).has_value();
  if (ctx.opt.progress == ProgressMode::quiet) return;
  fmt::print(stderr,
             "plan: {} on {} ({}); {} kernels x {} shapes x {} M values; {} configs to compile "
             "({} cached), {} (config, shape, M) to verify and time in {} races\n",
             spec.name, device ? device->name : "no device", ctx.arch.name, spec.kernels.size(),
             spec.shapes.size(), measured_ms(spec).size(), plan.units.size(), cached,
             plan.measurements, plan.races);
  const double est_compile = static_cast<double>(plan.units.size() - cached) * 0.6 /
                             std::max(1u, std::thread::hardware_concurrency());
  const double est_measure =
      ctx.opt.compile_only ? 0 : static_cast<double>(plan.races) * (spec.stop.max_seconds + 0.5);
  fmt::print(stderr, "estimate: compile about {:.0f} s, measure at most {:.0f} s\n", est_compile,
             est_measure);
}

void print_summary(const SweepContext& ctx) {
  const auto& sec = ctx.sec;
  const auto winners = ctx.store.winners(ctx.run, db::OnInvalid::flag);
  const auto counts = ctx.store.counts(ctx.run);
  if (ctx.opt.json) {
    json out = {{"run", ctx.run},
                {"workers", ctx.workers},
                {"ceiling_gbps", ctx.ceiling_gbps},
                {"counts",
                 {{"compiles", counts.compiles},
                  {"checks", counts.checks},
                  {"checks_failed", counts.checks_failed},
                  {"measurements", counts.measurements},
                  {"samples", counts.samples},
                  {"winners", counts.winners}}},
                {"seconds",
                 {{"open", sec.open},
                  {"compile", sec.compile},
                  {"shapes", sec.shapes},
                  {"verify", sec.verify},
                  {"race_setup", sec.race_setup},
                  {"race_setup_workspace", sec.setup_workspace},
                  {"race_setup_baselines", sec.setup_baselines},
                  {"race_setup_candidates", sec.setup_candidates},
                  {"race_setup_warmup", sec.setup_warmup},
                  {"sampling", sec.sampling},
                  {"store", sec.store},
                  {"total", sec.total}}},
                {"winners", json::array()}};
    for (const auto& w : winners)
      out["winners"].push_back(
          {{"kernel", w.kernel},
           {"n", w.n},
           {"k", w.k},
           {"band", w.band_limit},
           {"config", {w.config.wv, w.config.sk, w.config.mb, w.config.npw, w.config.nt}},
           {"us", w.median_us},
           {"vs_bf16", w.speedup_vs_bf16.value_or(0)},
           {"vs_fp8", w.speedup_vs_fp8.value_or(0)}});
    fmt::print("{}\n", out.dump(2));
    return;
  }
  if (ctx.opt.progress == ProgressMode::quiet) return;
  fmt::print(
      "\nrun {}: {} compiles, {} checks ({} failed), {} measurements, {} samples, {} winners\n",
      ctx.run, counts.compiles, counts.checks, counts.checks_failed, counts.measurements,
      counts.samples, counts.winners);
  if (ctx.ceiling_gbps > 0) fmt::print("streaming-read ceiling {:.0f} GB/s\n", ctx.ceiling_gbps);
  // "other": planning, the run's rows, compile-cache reads, worker round trips between phases.
  const double other = sec.total - (sec.open + sec.compile + sec.shapes + sec.verify +
                                    sec.race_setup + sec.sampling + sec.store);
  fmt::print(
      "time: open and ceiling {:.1f} s, compile {:.1f} s, shapes {:.1f} s, verify {:.1f} s, race "
      "setup {:.1f} s, sampling {:.1f} s, store {:.1f} s, other {:.1f} s; total {:.1f} s\n",
      sec.open, sec.compile, sec.shapes, sec.verify, sec.race_setup, sec.sampling, sec.store,
      std::max(0.0, other), sec.total);
  fmt::print(
      "race setup: workspace {:.1f} s, baselines {:.1f} s, candidates {:.1f} s, warm-up "
      "{:.1f} s\n",
      sec.setup_workspace, sec.setup_baselines, sec.setup_candidates, sec.setup_warmup);
  if (ctx.workers > 1)
    fmt::print(
        "(shapes, verify, race setup, sampling and store are summed over the {} GPUs' workers, "
        "which ran at once; the dispatch lines give each one's busy and idle time)\n",
        ctx.workers);
  fmt::print("{:<14} {:<18} {:>5} {:<18} {:>9} {:>8} {:>8}\n", "kernel", "shape", "band", "config",
             "us", "vs bf16", "vs fp8");
  for (const auto& w : winners)
    fmt::print("{:<14} {:<18} {:>5} {:<18} {:>9.2f} {:>7.2f}x {:>7.2f}x\n", w.kernel,
               ctx.store.shape_name(ctx.run, w.n, w.k), w.band_limit,
               fmt::format("({},{},{},{},{})", w.config.wv, w.config.sk, w.config.mb, w.config.npw,
                           w.config.nt),
               w.median_us, w.speedup_vs_bf16.value_or(0), w.speedup_vs_fp8.value_or(0));
}

}  // namespace r4::tune
