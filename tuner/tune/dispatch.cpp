#include "tuner/tune/dispatch.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "tuner/gpu/device_json.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/compile_tracker.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

using nlohmann::json;

namespace {

// The streaming-read ceiling the first GPU's worker measured when it opened the device, as the
// run's baseline row. A resumed run keeps the ceiling it measured first, so its percentages stay
// comparable.
void record_ceiling(SweepContext& ctx, const json& r, std::optional<db::Id> gpu) {
  ctx.ceiling_gbps = r.value("ceiling_gbps", 0.0);
  bool have_ceiling = false;
  for (const auto& b : ctx.store.baselines(ctx.run)) {
    if (b.kind != db::BaselineKind::streaming_ceiling) continue;
    have_ceiling = true;
    if (b.gbps) ctx.ceiling_gbps = *b.gbps;
  }
  db::BaselineRow c;
  c.run_id = ctx.run;
  c.gpu_id = gpu;
  c.kind = db::BaselineKind::streaming_ceiling;
  c.gbps = ctx.ceiling_gbps;
  c.median_us =
      static_cast<double>(r.value("ceiling_bytes", std::int64_t{0})) / (ctx.ceiling_gbps * 1e3);
  c.n_samples = r.value("ceiling_samples", 0);
  c.algo =
      fmt::format("grid-stride 16-byte reads of {} bytes; best sample {:.0f} GB/s",
                  r.value("ceiling_bytes", std::int64_t{0}), r.value("ceiling_gbps_best", 0.0));
  if (!have_ceiling) ctx.store.insert_baseline(c);
}

}  // namespace

void set_up_shape(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh) {
  const auto t0 = SweepClock::now();
  worker.set_shape({{"op", "shape"},
                    {"n", sh.n},
                    {"k", sh.k},
                    {"seed", static_cast<unsigned>(sh.n * 131 + sh.k)},
                    {"llc_factor", ctx.spec.pool.llc_factor},
                    {"llc_bytes", ctx.spec.pool.llc_bytes},
                    {"max_bytes", ctx.spec.pool.max_bytes},
                    {"max_slices", ctx.spec.pool.screen_slices}});
  ctx.sec.shapes += since(t0);
}

void record_gpus(SweepContext& group, db::Id device_id, std::vector<GpuSlot>& gpus, std::size_t g) {
  bool first = true;
  for (auto& slot : gpus) {
    if (slot.group != g) continue;
    db::GpuRow row;
    row.device_id = device_id;
    row.host = slot.host;
    row.ordinal = slot.info.index;
    row.pci_bus_id = slot.info.pci_bus_id;
    slot.gpu_id = group.store.upsert_gpu(row);
    if (first) record_ceiling(group, slot.open_reply, slot.gpu_id);
    first = false;
    db::RunGpuRow rg;
    rg.run_id = group.run;
    rg.gpu_id = *slot.gpu_id;
    rg.rank = slot.rank;
    const double c = slot.open_reply.value("ceiling_gbps", 0.0);
    if (c > 0) rg.ceiling_gbps = c;
    group.store.record_run_gpu(rg);
  }
  std::map<db::Id, double> kept;
  for (const auto& rg : group.store.run_gpus(group.run))
    if (rg.ceiling_gbps) kept[rg.gpu_id] = *rg.ceiling_gbps;
  first = true;
  for (auto& slot : gpus) {
    if (slot.group != g) continue;
    // The run's own ceiling for its first GPU (what the single-GPU path always used).
    slot.ceiling_gbps = first ? group.ceiling_gbps : kept[*slot.gpu_id];
    first = false;
  }
}

SingleGpuDispatcher::SingleGpuDispatcher(SweepContext& ctx, std::string host)
    : ctx_(ctx), worker_(ctx.opt.worker_argv, ctx.opt.device), host_(std::move(host)) {}

OpenedDevices SingleGpuDispatcher::open() {
  OpenedDevices out;
  const auto r = worker_.open_measuring_ceiling();
  if (r.status != worker::JobStatus::ok || !r.reply.value("ok", false)) {
    out.exit_code = 4;
    out.error = fmt::format("no GPU to time on ({})", r.status == worker::JobStatus::ok
                                                          ? r.reply.value("error", std::string("?"))
                                                          : r.detail);
    return out;
  }
  GpuSlot slot;
  slot.host = host_;
  slot.info = gpu::device_from_json(r.reply.at("device"));
  slot.info.index = ctx_.opt.device;
  slot.open_reply = r.reply;
  out.gpus.push_back(slot);
  out.groups.push_back(slot.info);
  out.device = slot.info;
  return out;
}

void SingleGpuDispatcher::run(const std::vector<SweepContext*>& groups,
                              const std::vector<GpuSlot>& /*gpus: the context has its GPU*/,
                              const DispatchWork& work) {
  SweepContext& ctx = *groups.at(0);
  const auto ms = measured_ms(ctx.spec);
  const auto& shapes = ctx.spec.shapes;
  Progress prog(ctx.opt.progress, "measure", shapes.size() * ms.size());
  // Every race, in spec order: shapes, then M.
  std::vector<std::pair<std::size_t, int>> left;
  for (std::size_t s = 0; s < shapes.size(); ++s)
    for (int m : ms) left.emplace_back(s, m);
  // While the compile stage runs beside the races (sweep.cpp), a race is ready once the units it
  // needs are compiled. Without it every race is ready and the order is the spec's.
  std::map<std::pair<std::size_t, int>, std::vector<std::size_t>> needed;
  const auto ready = [&](const std::pair<std::size_t, int>& r) {
    if (!ctx.compiling || !ctx.plan ||
        ctx.raced.count({shapes[r.first].n, shapes[r.first].k, r.second}))
      return true;
    auto it = needed.find(r);
    if (it == needed.end())
      it = needed.emplace(r, units_needed(*ctx.plan, ctx.arch, shapes[r.first], r.second)).first;
    return ctx.compiling->ready(it->second) || ctx.compiling->finished();
  };
  std::optional<std::size_t> current;  // the shape set up in the worker
  std::set<std::size_t> seen_shapes;   // their per-shape stages done
  std::size_t compiled = 0;
  while (!left.empty()) {
    // The set-up shape's next ready race (a shape's set-up is ~0.4 s on the H200), else the first
    // ready one in spec order, else wait for the compile stage's next unit.
    auto pick = left.end();
    if (current)
      pick = std::find_if(left.begin(), left.end(),
                          [&](const auto& r) { return r.first == *current && ready(r); });
    if (pick == left.end()) pick = std::find_if(left.begin(), left.end(), ready);
    if (pick == left.end()) {
      const auto tw = SweepClock::now();
      compiled = ctx.compiling->wait_progress(compiled);
      ctx.sec.compile_wait += since(tw);
      continue;
    }
    const auto [s, m] = *pick;
    left.erase(pick);
    const auto& sh = shapes[s];
    const auto t0 = SweepClock::now();
    if (current != s) {
      set_up_shape(ctx, worker_, sh);
      current = s;
      if (seen_shapes.insert(s).second && work.on_shape) work.on_shape(ctx, worker_, sh);
    }
    work.race(ctx, worker_, sh, m);
    const auto& t = ctx.tally;
    prog.advance(1, fmt::format("{} ({}x{}) M={} {:.1f} s; {} verified ({} failed), {} timed, "
                                "{} raced out",
                                sh.name.empty() ? "shape" : sh.name, sh.n, sh.k, m, since(t0),
                                t.verified, t.verify_failed, t.timed, t.raced_out));
  }
  prog.finish();
  if (work.after_races) work.after_races(ctx, worker_);
}

}  // namespace r4::tune
