#include "tuner/tune/race_stage.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "kernels/family.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/compile_tracker.hpp"
#include "tuner/tune/race.hpp"
#include "tuner/tune/verify_stage.hpp"
#include "tuner/tune/worker_sampler.hpp"

namespace r4::tune {

namespace {

using nlohmann::json;

// One attempt's entries as the worker set them up.
struct RaceSetup {
  json prep;                                // the worker's answer to `race`
  std::vector<std::string> live_baselines;  // the baselines it can run at this shape
  std::vector<std::size_t> map;             // race entry -> worker entry
  std::vector<int> groups;                  // per candidate: its kernel, numbered 0..G-1
};

struct RaceResult {
  RaceSetup setup;
  RaceOutcome outcome;
};

// The `race` request's entries: the candidates, then the baselines.
json race_entries(const std::vector<Unit*>& cands, const std::vector<std::string>& baselines) {
  json entries = json::array();
  for (auto* u : cands)
    entries.push_back({{"kernel", std::string(kernels::name(u->id))},
                       {"binary", u->binary_path},
                       {"config", config_json(u->config)},
                       {"injected", u->injected}});
  for (const auto& b : baselines) entries.push_back({{"baseline", b}});
  return entries;
}

// One group per kernel present among the candidates, in the spec's kernel order.
std::vector<int> kernel_groups(const Spec& spec, const std::vector<Unit*>& cands) {
  const auto group_of = [&](const Unit* u) {
    const auto n = kernels::name(u->id);
    return static_cast<int>(std::find(spec.kernels.begin(), spec.kernels.end(), n) -
                            spec.kernels.begin());
  };
  std::vector<int> groups;
  int n_groups = 0;
  // Renumber the kernels present into 0..G-1.
  std::map<int, int> dense;
  for (auto* u : cands) dense.emplace(group_of(u), 0);
  for (auto& [k, v] : dense) v = n_groups++;
  for (auto* u : cands) groups.push_back(dense[group_of(u)]);
  return groups;
}

// Sets the race's entries up in the worker (pool, baselines, candidates, warm-up). Throws when
// the worker cannot.
RaceSetup set_up_race(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh, int m,
                      const std::vector<Unit*>& cands, const std::vector<std::string>& baselines) {
  RaceSetup s;
  worker::JobResult raw;
  const auto ts = SweepClock::now();
  s.prep = worker.call({{"op", "race"},
                        {"m", m},
                        {"entries", race_entries(cands, baselines)},
                        {"warmup", ctx.spec.stop.warmup_replays}},
                       600000, &raw);
  ctx.sec.race_setup += since(ts);
  if (s.prep.contains("setup_seconds")) {
    const auto& ss = s.prep["setup_seconds"];
    ctx.sec.setup_workspace += ss.value("workspace", 0.0);
    ctx.sec.setup_baselines += ss.value("baselines", 0.0);
    ctx.sec.setup_candidates += ss.value("candidates", 0.0);
    ctx.sec.setup_warmup += ss.value("warmup", 0.0);
  }
  if (!s.prep.value("ok", false))
    throw std::runtime_error(fmt::format("race setup failed for N={} K={} M={}: {}", sh.n, sh.k, m,
                                         s.prep.value("error", std::string())));
  // Baselines the library cannot run at this shape leave the race (noted, not timed).
  for (std::size_t i = 0; i < cands.size(); ++i) s.map.push_back(i);
  for (std::size_t b = 0; b < baselines.size(); ++b) {
    if (s.prep["ready"][cands.size() + b].get<bool>()) {
      s.live_baselines.push_back(baselines[b]);
      s.map.push_back(cands.size() + b);
    }
  }
  s.groups = kernel_groups(ctx.spec, cands);
  return s;
}

// The race's entry indices over the worker's (the baselines it could not run are left out).
struct MappedSampler final : Sampler {
  WorkerSampler& s;
  const std::vector<std::size_t>& map;
  MappedSampler(WorkerSampler& ws, const std::vector<std::size_t>& mp) : s(ws), map(mp) {}
  double sample(std::size_t i, bool whole) override { return s.sample(map[i], whole); }
  std::vector<double> sample_round(const std::vector<std::size_t>& es, bool whole) override {
    std::vector<std::size_t> w;
    for (std::size_t e : es) w.push_back(map[e]);
    return s.sample_round(w, whole);
  }
  double device_seconds() const override { return s.device_seconds(); }
};

// The sampled entry faulted or hung while being timed: a candidate is recorded as `failed`, and
// either leaves the race.
void drop_failed_entry(SweepContext& ctx, const ShapeSpec& sh, int m,
                       const WorkerSampler::Failure& f, std::vector<Unit*>& cands,
                       std::vector<std::string>& baselines) {
  const std::size_t e = f.entry;  // worker entry index
  if (e >= cands.size()) {
    baselines.erase(baselines.begin() + static_cast<std::ptrdiff_t>(e - cands.size()));
    return;
  }
  auto* bad = cands[e];
  db::MeasurementRow mr;
  mr.run_id = ctx.run;
  mr.compile_id = bad->compile_id;
  mr.kernel = std::string(kernels::name(bad->id));
  mr.dtype = dtype_of(bad->id);
  mr.n = sh.n;
  mr.k = sh.k;
  mr.m = m;
  mr.config = to_db(bad->config);
  mr.status = db::MeasurementStatus::failed;
  mr.detail = "failed while timing: " + f.detail;
  RowBatch b;
  b.measurements.push_back({mr, {}});
  ctx.write(std::move(b));
  ++ctx.tally.failed;
  cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(e));
}

// Up to 8 attempts: a failed round makes the next attempt sample one entry per request, so the
// entry at fault is named and dropped by the one after. Nothing when every attempt failed or no
// candidate is left (nothing is stored, so a --resume races it again).
std::optional<RaceResult> race_with_retry(SweepContext& ctx, SweepWorker& worker,
                                          const ShapeSpec& sh, int m, std::vector<Unit*>& cands) {
  std::vector<std::string> baselines = ctx.spec.baselines;
  bool single_samples = false;
  for (int attempt = 0; attempt < 8 && !cands.empty(); ++attempt) {
    RaceResult r{set_up_race(ctx, worker, sh, m, cands, baselines), {}};
    WorkerSampler ws(worker.process(), std::chrono::milliseconds(ctx.opt.sample_timeout_ms));
    ws.set_copies(r.setup.prep.value("copies", 1));
    ws.set_single(single_samples);
    MappedSampler sampler(ws, r.setup.map);
    try {
      const auto tr = SweepClock::now();
      r.outcome = race(sampler, cands.size(), r.setup.live_baselines.size(), ctx.spec.stop, ctx.rng,
                       r.setup.groups);
      ctx.sec.sampling += since(tr);
    } catch (const WorkerSampler::RoundFailure& f) {
      // Race again, one sample per request, to find which entry it was.
      if (ctx.opt.progress != ProgressMode::quiet)
        fmt::print(stderr,
                   "a round of N={} K={} M={} failed ({}); racing again one sample at a time to "
                   "find the entry\n",
                   sh.n, sh.k, m, f.detail.substr(0, 200));
      single_samples = true;
      continue;
    } catch (const WorkerSampler::Failure& f) {
      // Record it, race again without it.
      drop_failed_entry(ctx, sh, m, f, cands, baselines);
      continue;
    }
    return r;
  }
  return std::nullopt;
}

// The candidates' measurements with their samples: finalists' re-measured ones, the others'
// screening ones; measurement i of the batch is candidate i.
void store_candidates(SweepContext& ctx, const ShapeSpec& sh, int m,
                      const std::vector<Unit*>& cands, RaceResult& r, RowBatch& batch) {
  const auto wbytes = static_cast<double>(kernels::weight_bytes(sh.n, sh.k));
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const auto& e = r.outcome.entries[i];
    db::MeasurementRow mr;
    mr.run_id = ctx.run;
    mr.compile_id = cands[i]->compile_id;
    mr.kernel = std::string(kernels::name(cands[i]->id));
    mr.dtype = dtype_of(cands[i]->id);
    mr.n = sh.n;
    mr.k = sh.k;
    mr.m = m;
    mr.config = to_db(cands[i]->config);
    mr.status = e.status == EntryStatus::raced_out ? db::MeasurementStatus::raced_out
                                                   : db::MeasurementStatus::ok;
    const bool finalist = !e.remeasured.empty();
    const auto& s = finalist ? e.final_summary : e.summary;
    mr.median_us = s.median;
    mr.ci_low_us = s.ci_low;
    mr.ci_high_us = s.ci_high;
    mr.gbps = wbytes / (s.median * 1e-6) / 1e9;
    if (ctx.ceiling_gbps > 0) mr.pct_of_ceiling = 100.0 * *mr.gbps / ctx.ceiling_gbps;
    const int pool = r.setup.prep.value("copies", 0), slice = r.setup.prep.value("slice_len", pool);
    const std::string status_word = e.status == EntryStatus::converged ? "converged"
                                    : e.status == EntryStatus::capped  ? "capped"
                                                                       : "raced out";
    mr.detail = finalist
                    ? fmt::format(
                          "finalist, re-measured over the whole {}-copy pool; screening median "
                          "{:.3f} us over {} samples of {}-launch slices ({})",
                          pool, e.summary.median, e.samples.size(), slice, status_word)
                    : fmt::format("{}; screened on {}-launch slices of a {}-copy pool", status_word,
                                  slice, pool);
    batch.measurements.push_back({mr, finalist ? e.remeasured : e.samples});
    mr.status == db::MeasurementStatus::raced_out ? ++ctx.tally.raced_out : ++ctx.tally.timed;
  }
}

// The baselines with every sample. Returns their re-measured medians by kind: speedups use
// those, taken interleaved with the finalists.
std::map<std::string, double> store_baselines(SweepContext& ctx, const ShapeSpec& sh, int m,
                                              std::size_t n_cands, RaceResult& r, RowBatch& batch) {
  std::map<std::string, double> base_median;
  for (std::size_t b = 0; b < r.setup.live_baselines.size(); ++b) {
    const auto& e = r.outcome.entries[n_cands + b];
    std::vector<double> all = e.samples;
    all.insert(all.end(), e.remeasured.begin(), e.remeasured.end());
    const auto s = summarize(all);
    db::BaselineRow br;
    br.run_id = ctx.run;
    br.kind =
        r.setup.live_baselines[b] == "bf16" ? db::BaselineKind::bf16 : db::BaselineKind::fp8_block;
    br.n = sh.n;
    br.k = sh.k;
    br.m = m;
    br.median_us = s.median;
    br.ci_low_us = s.ci_low;
    br.ci_high_us = s.ci_high;
    br.algo = r.setup.prep["notes"][r.setup.map[n_cands + b]].get<std::string>();
    batch.baselines.push_back({br, std::move(all)});
    base_median[r.setup.live_baselines[b]] = e.final_summary.median;
  }
  return base_median;
}

// Each kernel's winner, at a band's top M only (other M are measured and reported, never
// chosen).
void store_winners(SweepContext& ctx, const ShapeSpec& sh, int m, const std::vector<Unit*>& cands,
                   const RaceOutcome& out, std::map<std::string, double>& base_median,
                   RowBatch& batch) {
  const auto& limits = ctx.spec.band_limits;
  const bool band_top = std::find(limits.begin(), limits.end(), m) != limits.end();
  for (std::size_t g = 0; band_top && g < out.winners.size(); ++g) {
    const std::size_t wi = out.winners[g];
    if (wi >= cands.size()) continue;
    const auto& we = out.entries[wi];
    db::WinnerRow w;
    w.run_id = ctx.run;
    w.kernel = std::string(kernels::name(cands[wi]->id));
    w.dtype = dtype_of(cands[wi]->id);
    w.n = sh.n;
    w.k = sh.k;
    w.band_limit = m;
    w.m_measured = m;
    w.config = to_db(cands[wi]->config);
    w.median_us = we.final_summary.median;
    if (base_median.count("bf16")) w.speedup_vs_bf16 = base_median["bf16"] / w.median_us;
    if (base_median.count("fp8_block")) w.speedup_vs_fp8 = base_median["fp8_block"] / w.median_us;
    w.remeasured = true;
    batch.winners.emplace_back(w, wi);  // candidate wi is the batch's measurement wi
  }
}

// The race as one batch, written in one transaction: a kill loses at most this race.
void store_race(SweepContext& ctx, const ShapeSpec& sh, int m, const std::vector<Unit*>& cands,
                RaceResult& r) {
  const auto tw = SweepClock::now();
  RowBatch batch;
  store_candidates(ctx, sh, m, cands, r, batch);
  auto base_median = store_baselines(ctx, sh, m, cands.size(), r, batch);
  store_winners(ctx, sh, m, cands, r.outcome, base_median, batch);
  ctx.write(std::move(batch));
  ctx.sec.store += since(tw);
}

}  // namespace

void run_race(SweepContext& ctx, SweepWorker& worker, Plan& plan, const ShapeSpec& sh, int m) {
  if (ctx.raced.count({sh.n, sh.k, m})) return;  // done before a --resume
  if (ctx.compiling) {
    const auto tw = SweepClock::now();
    ctx.compiling->wait(units_needed(plan, ctx.arch, sh, m));
    ctx.sec.compile_wait += since(tw);
    ctx.compiling->race_started();
  }
  auto cands = verify_candidates(ctx, worker, plan, sh, m);
  if (cands.empty()) {
    ctx.raced.insert({sh.n, sh.k, m});
    return;
  }
  auto result = race_with_retry(ctx, worker, sh, m, cands);
  if (!result) return;
  store_race(ctx, sh, m, cands, *result);
  ctx.raced.insert({sh.n, sh.k, m});
}

}  // namespace r4::tune
