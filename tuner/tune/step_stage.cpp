#include "tuner/tune/step_stage.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "db/step_detail.hpp"
#include "kernels/family.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/stats.hpp"

namespace r4::tune {

namespace {

using nlohmann::json;

constexpr const char* kPaths[] = {"w4",        "w4_pdl",     "bf16",
                                  "fp8_block", "read_floor", "read_floor_pdl"};

// The 4-bit kernel a link runs at M: the faster of the run's int4 winners (w4a16, w4a8) for the
// first band whose limit is >= M, or none. The fp8-activation GEMMs serve other checkpoint formats
// (GPTQ, MXFP4), so they are not a choice for the same chain; their steps are not timed yet.
struct Choice {
  kernels::KernelId id = kernels::KernelId::gemm_w4a16_nt;
  kernels::Config config;
  std::string binary;  // filled once compiled
};

std::optional<Choice> choose(const SweepContext& ctx, const std::vector<db::WinnerRow>& winners,
                             const ShapeSpec& sh, int m) {
  int band = 0;
  for (int lim : ctx.spec.band_limits)
    if (lim >= m) {
      band = lim;
      break;
    }
  if (band == 0) return std::nullopt;
  const db::WinnerRow* best = nullptr;
  for (const auto& w : winners) {
    const auto wid = kernels::parse_kernel(w.kernel);
    if (wid && kernels::is_fp8_act(*wid)) continue;
    if (w.n == sh.n && w.k == sh.k && w.band_limit == band &&
        (!best || w.median_us < best->median_us))
      best = &w;
  }
  if (!best) return std::nullopt;
  const auto id = kernels::parse_kernel(best->kernel);
  if (!id) return std::nullopt;
  return Choice{*id, from_db(best->config), {}};
}

}  // namespace

void run_steps(SweepContext& ctx, SweepWorker& worker, const Plan& plan, gpu::Backend& backend) {
  if (!ctx.spec.step) return;
  const auto t0 = SweepClock::now();
  const auto& step = *ctx.spec.step;
  std::set<std::pair<int, std::string>> stored;  // (M, path) this run has
  for (const auto& r : ctx.store.steps(ctx.run))
    if (r.name == step.name) stored.insert({r.m, std::string(db::to_string(r.path))});
  const auto winners = ctx.store.winners(ctx.run, db::OnInvalid::flag);

  // The links' kernels per M; the w4a16 winners are compiled again with bf16 activations (what a
  // chain feeds them: the previous GEMM's bf16 output), once per distinct config.
  std::vector<int> ms;
  std::map<int, std::vector<std::optional<Choice>>> choices;
  Plan extra;
  for (int m : step.m) {
    bool done = true;
    for (const char* p : kPaths) done = done && stored.count({m, p});
    if (done) continue;
    ms.push_back(m);
    auto& row = choices[m];
    for (std::size_t i : step.chain) {
      auto c = choose(ctx, winners, ctx.spec.shapes[i], m);
      if (c && c->id == kernels::KernelId::gemm_w4a16_nt) {
        const bool have = std::any_of(extra.units.begin(), extra.units.end(), [&](const Unit& u) {
          return u.id == c->id && u.config == c->config;
        });
        if (!have)
          extra.units.push_back(
              {c->id,
               c->config,
               {},
               kernels::compile_request(c->id, c->config, ctx.arch, {true, false}),
               {},
               {},
               0,
               false,
               {}});
      }
      row.push_back(c);
    }
  }
  if (ms.empty()) return;
  if (!extra.units.empty()) compile_stage(ctx, extra, backend);
  const auto binary_of = [&](const Choice& c) -> std::string {
    const auto& units = c.id == kernels::KernelId::gemm_w4a16_nt ? extra.units : plan.units;
    for (const auto& u : units)
      if (u.id == c.id && u.config == c.config && u.injected.empty() && u.ok) return u.binary_path;
    return {};
  };

  json shapes = json::array();
  for (std::size_t i : step.chain) {
    const auto& sh = ctx.spec.shapes[i];
    shapes.push_back({sh.n, sh.k, sh.name});
  }
  json steps = json::array();
  for (int m : ms) {
    json links = json::array();
    for (std::size_t p = 0; p < step.chain.size(); ++p) {
      const auto& sh = ctx.spec.shapes[step.chain[p]];
      json l = json::object();
      if (auto& c = choices[m][p]) {
        c->binary = binary_of(*c);
        if (!c->binary.empty()) {
          l["kernel"] = std::string(kernels::name(c->id));
          l["binary"] = c->binary;
          l["config"] = config_json(c->config);
        }
      }
      const auto g = ctx.floor_grids.find({sh.n, sh.k});
      if (g != ctx.floor_grids.end() && g->second.first > 0)
        l["grid"] = {g->second.first, g->second.second};
      links.push_back(l);
    }
    steps.push_back({{"m", m}, {"links", links}});
  }
  json paths = json::array();
  for (const char* p : kPaths) paths.push_back(p);
  const json rep = worker.call({{"op", "step"},
                                {"shapes", shapes},
                                {"paths", paths},
                                {"rounds", 15},
                                {"seed", static_cast<unsigned>(ctx.rng())},
                                {"llc_factor", ctx.spec.pool.llc_factor},
                                {"llc_bytes", ctx.spec.pool.llc_bytes},
                                {"max_bytes", ctx.spec.pool.max_bytes},
                                {"steps", steps}},
                               600000);
  if (!rep.value("ok", false))
    throw std::runtime_error("timing the decode steps failed: " +
                             rep.value("error", std::string("?")));

  for (const auto& st : rep.at("steps")) {
    const int m = st.at("m").get<int>();
    std::string line = fmt::format("step {} M={}:", step.name, m);
    for (const auto& [pname, o] : st.at("paths").items()) {
      if (stored.count({m, pname})) continue;
      db::StepRow r;
      r.run_id = ctx.run;
      r.name = step.name;
      r.m = m;
      r.path = db::parse_step_path(pname);
      r.launches = o.value("launches", 0);
      db::StepDetail d;
      for (std::size_t p = 0; p < step.chain.size(); ++p) {
        const auto& sh = ctx.spec.shapes[step.chain[p]];
        db::StepLink link{sh.name, sh.n, sh.k, {}, {}, {}, {}, {}};
        if (pname == "w4" || pname == "w4_pdl") {
          if (const auto& c = choices[m][p]) {
            link.kernel = std::string(kernels::name(c->id));
            link.dtype = dtype_of(c->id);
            link.generation = std::string(db::generation_name(c->config.gen));
            const json cj = config_json(c->config);
            for (const auto& v : cj) link.config.push_back(v.get<int>());
          }
        } else if (pname == "bf16" || pname == "fp8_block") {
          link.kernel = pname == "bf16" ? "cublaslt_bf16" : "cublaslt_fp8_block";
          link.dtype = pname;
        } else {
          link.kernel = "read_floor";
          const auto g = ctx.floor_grids.find({sh.n, sh.k});
          if (g != ctx.floor_grids.end())
            link.config = {static_cast<int>(g->second.first), static_cast<int>(g->second.second)};
        }
        d.chain.push_back(link);
      }
      const auto samples = o.value("samples", std::vector<double>{});
      if (o.value("ok", false) && !samples.empty()) {
        const auto s = summarize(samples);
        r.status = db::StepStatus::ok;
        r.median_us = s.median;
        r.ci_low_us = s.ci_low;
        r.ci_high_us = s.ci_high;
        r.n_samples = s.n;
        if (r.launches <= 0) r.launches = static_cast<int>(step.chain.size());
        if (pname == "bf16" || pname == "fp8_block")
          for (auto& l : d.chain) l.algo = o.value("detail", std::string());
        line += fmt::format(" {} {:.2f} us", pname, s.median);
      } else {
        r.status = db::StepStatus::failed;
        d.error = o.value("detail", std::string("not timed"));
        line += fmt::format(" {} FAILED", pname);
      }
      r.detail = db::step_detail_json(d);
      // Through the context: the worker's GPU is stamped on the row.
      RowBatch batch;
      batch.steps.push_back({r, r.status == db::StepStatus::ok ? samples : std::vector<double>{}});
      ctx.write(std::move(batch));
    }
    if (ctx.opt.progress != ProgressMode::quiet) fmt::print(stderr, "{}\n", line);
  }
  ctx.sec.steps += since(t0);
}

}  // namespace r4::tune
