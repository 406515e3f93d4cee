#include "tuner/tune/dispatch.hpp"

#include <cstdint>

#include <fmt/core.h>

#include "tuner/gpu/device_json.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

using nlohmann::json;

namespace {

// The streaming-read ceiling the worker measured when it opened the device, as the run's
// baseline row. A resumed run keeps the ceiling it measured first, so its percentages stay
// comparable.
void record_ceiling(SweepContext& ctx, const json& r) {
  ctx.ceiling_gbps = r.value("ceiling_gbps", 0.0);
  bool have_ceiling = false;
  for (const auto& b : ctx.store.baselines(ctx.run)) {
    if (b.kind != db::BaselineKind::streaming_ceiling) continue;
    have_ceiling = true;
    if (b.gbps) ctx.ceiling_gbps = *b.gbps;
  }
  db::BaselineRow c;
  c.run_id = ctx.run;
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

SingleGpuDispatcher::SingleGpuDispatcher(SweepContext& ctx)
    : ctx_(ctx), worker_(ctx.opt.worker_argv, ctx.opt.device) {}

OpenedDevices SingleGpuDispatcher::open() {
  const auto r = worker_.open_measuring_ceiling();
  if (r.status != worker::JobStatus::ok || !r.reply.value("ok", false))
    return {std::nullopt, r.status == worker::JobStatus::ok
                              ? r.reply.value("error", std::string("?"))
                              : r.detail};
  open_reply_ = r.reply;
  return {gpu::device_from_json(r.reply.at("device")), {}};
}

void SingleGpuDispatcher::run(const DispatchWork& work) {
  record_ceiling(ctx_, open_reply_);
  const auto ms = measured_ms(ctx_.spec);
  Progress prog(ctx_.opt.progress, "measure", ctx_.spec.shapes.size() * ms.size());
  for (const auto& sh : ctx_.spec.shapes) {
    const auto t0 = SweepClock::now();
    const std::size_t before = ctx_.raced.size();
    work.on_shape(worker_, sh);
    for (int m : ms) work.race(worker_, sh, m);
    const auto& t = ctx_.tally;
    prog.advance(ctx_.raced.size() - before,
                 fmt::format("{} ({}x{}) {:.1f} s; {} verified ({} failed), {} timed, {} raced out",
                             sh.name.empty() ? "shape" : sh.name, sh.n, sh.k, since(t0), t.verified,
                             t.verify_failed, t.timed, t.raced_out));
  }
  prog.finish();
}

}  // namespace r4::tune
