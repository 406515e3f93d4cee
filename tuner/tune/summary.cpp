#include "tuner/tune/summary.hpp"

#include <algorithm>
#include <set>
#include <string>
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
  std::set<std::string> bodies;  // of the configs not cached: what the compiler will run on
  const std::string compiler = backend.compiler_version();
  for (const auto& u : plan.units) {
    const bool hit =
        ctx.store.has_compile(u.key.empty() ? compile_key(u.request, compiler) : u.key);
    cached += hit;
    if (!hit)
      bodies.insert(u.body_key.empty() ? compile_body_key(u.request, compiler) : u.body_key);
  }
  if (ctx.opt.progress == ProgressMode::quiet) return;
  fmt::print(stderr,
             "plan: {} on {} ({}); {} kernels x {} shapes x {} M values; {} configs to compile "
             "({} cached; {} compiles, as SK 2, 4 and 8 share a body), {} (config, shape, M) to "
             "verify and time in {} races\n",
             spec.name, device ? device->name : "no device", ctx.arch.name, spec.kernels.size(),
             spec.shapes.size(), measured_ms(spec).size(), plan.units.size(), cached, bodies.size(),
             plan.measurements, plan.races);
  // A kernel the arch has no path for (the fp8-activation GEMMs below sm_89 and on gfx11 / gfx942,
  // gemm_mxfp4a8fp8_nt on every AMD target): said, not silently dropped from the tables.
  for (const auto& kname : spec.kernels) {
    const bool any = std::any_of(plan.units.begin(), plan.units.end(),
                                 [&](const Unit& u) { return kernels::name(u.id) == kname; });
    if (!any)
      fmt::print(stderr, "plan: {} has no valid config on {} (skipped; kernels/config.hpp)\n",
                 kname, ctx.arch.name);
  }
  const double est_compile =
      static_cast<double>(bodies.size()) * 0.6 / std::max(1u, std::thread::hardware_concurrency());
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
                  {"floors", sec.floors},
                  {"steps", sec.steps},
                  {"compile_beside_races", sec.compile_beside},
                  {"compile_wait", sec.compile_wait},
                  {"compiled_at_first_race", sec.compiled_at_first_race},
                  {"total", sec.total}}},
                {"winners", json::array()},
                {"floors", json::array()},
                {"steps", json::array()}};
    for (const auto& f : ctx.store.floors(ctx.run))
      out["floors"].push_back({{"kind", std::string(db::to_string(f.kind))},
                               {"n", f.n},
                               {"k", f.k},
                               {"us", f.median_us},
                               {"gbps", f.gbps.value_or(0)}});
    for (const auto& st : ctx.store.steps(ctx.run))
      out["steps"].push_back({{"name", st.name},
                              {"m", st.m},
                              {"path", std::string(db::to_string(st.path))},
                              {"ok", st.status == db::StepStatus::ok},
                              {"us", st.median_us.value_or(0)}});
    for (const auto& w : winners)
      out["winners"].push_back({{"kernel", w.kernel},
                                {"n", w.n},
                                {"k", w.k},
                                {"band", w.band_limit},
                                {"generation", std::string(db::generation_name(w.config.gen))},
                                {"config",
                                 {w.config.wv, w.config.sk, w.config.mb, w.config.npw, w.config.nt,
                                  w.config.gen, w.config.st}},
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
  // Compile beside the races is counted once: in the races' wall clock, as their waits.
  const double other =
      sec.total - (sec.open + sec.compile - sec.compile_beside + sec.compile_wait + sec.shapes +
                   sec.verify + sec.race_setup + sec.sampling + sec.store + sec.floors + sec.steps);
  fmt::print(
      "time: open and ceiling {:.1f} s, compile {:.1f} s, shapes {:.1f} s, floors {:.1f} s, verify "
      "{:.1f} s, race setup {:.1f} s, sampling {:.1f} s, store {:.1f} s, steps {:.1f} s, other "
      "{:.1f} s; total {:.1f} s\n",
      sec.open, sec.compile, sec.shapes, sec.floors, sec.verify, sec.race_setup, sec.sampling,
      sec.store, sec.steps, std::max(0.0, other), sec.total);
  // The driver's own wall clock: what several GPUs cannot share (before and after the races).
  if (sec.racing > 0)
    fmt::print(
        "wall: {:.1f} s before the first race (open, plan, compile), {:.1f} s racing, "
        "{:.1f} s after\n",
        sec.before_races, sec.racing, std::max(0.0, sec.total - sec.before_races - sec.racing));
  if (sec.compile_beside > 0)
    fmt::print(
        "overlap: the first race began with {} of {} configs compiled; {:.1f} s of the compile "
        "ran beside the races, which waited {:.1f} s for the configs they needed\n",
        sec.compiled_at_first_race, ctx.plan ? ctx.plan->units.size() : 0, sec.compile_beside,
        sec.compile_wait);
  const auto floors = ctx.store.floors(ctx.run);
  const auto read_floor = [&](std::int64_t n, std::int64_t k) -> double {
    for (const auto& f : floors)
      if (f.kind == db::FloorKind::read && f.n == n && f.k == k) return f.median_us;
    return 0;
  };
  for (const auto& f : floors)
    if (f.kind == db::FloorKind::launch) fmt::print("launch floor {:.2f} us\n", f.median_us);
  fmt::print(
      "race setup: workspace {:.1f} s, baselines {:.1f} s, candidates {:.1f} s, warm-up "
      "{:.1f} s\n",
      sec.setup_workspace, sec.setup_baselines, sec.setup_candidates, sec.setup_warmup);
  if (ctx.workers > 1)
    fmt::print(
        "(shapes, verify, race setup, sampling and store are summed over the {} GPUs' workers, "
        "which ran at once; the dispatch lines give each one's busy and idle time)\n",
        ctx.workers);
  // Configs as kernels::to_string writes them: "(WV, SK, MB, NPW, NT)" for mma_sync,
  // "sm90a(WV, SK, MB, NPW, NT, ST)" for the sm90a generation.
  fmt::print("{:<14} {:<18} {:>5} {:<30} {:>9} {:>8} {:>8} {:>8}\n", "kernel", "shape", "band",
             "config", "us", "vs bf16", "vs fp8", "x floor");
  for (const auto& w : winners) {
    const double fl = read_floor(w.n, w.k);
    fmt::print("{:<14} {:<18} {:>5} {:<30} {:>9.2f} {:>7.2f}x {:>7.2f}x {:>7.2f}x\n", w.kernel,
               ctx.store.shape_name(ctx.run, w.n, w.k), w.band_limit, db::to_string(w.config),
               w.median_us, w.speedup_vs_bf16.value_or(0), w.speedup_vs_fp8.value_or(0),
               fl > 0 ? w.median_us / fl : 0.0);
  }
  const auto steps = ctx.store.steps(ctx.run);
  if (!steps.empty()) {
    fmt::print("{:<10} {:>3}", "step", "M");
    for (auto p : db::kStepPaths) fmt::print(" {:>14}", db::to_string(p));
    fmt::print("   (us per step)\n");
    std::set<std::pair<std::string, int>> keys;
    for (const auto& st : steps) keys.insert({st.name, st.m});
    for (const auto& [name, m] : keys) {
      fmt::print("{:<10} {:>3}", name, m);
      for (auto p : db::kStepPaths) {
        std::string cell = "-";
        for (const auto& st : steps)
          if (st.name == name && st.m == m && st.path == p)
            cell = st.median_us ? fmt::format("{:.2f}", *st.median_us) : "failed";
        fmt::print(" {:>14}", cell);
      }
      fmt::print("\n");
    }
  }
}

}  // namespace r4::tune
