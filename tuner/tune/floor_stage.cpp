#include "tuner/tune/floor_stage.hpp"

#include <cstdio>
#include <stdexcept>

#include <fmt/core.h>

#include "kernels/floors.hpp"
#include "tuner/tune/stats.hpp"

namespace r4::tune {

namespace {

using nlohmann::json;

db::FloorRow floor_row(const SweepContext& ctx, db::FloorKind kind, std::int64_t n, std::int64_t k,
                       std::int64_t bytes, const std::vector<double>& samples,
                       const std::string& detail) {
  const auto s = summarize(samples);
  db::FloorRow f;
  f.run_id = ctx.run;
  f.kind = kind;
  f.n = n;
  f.k = k;
  f.bytes = bytes;
  f.median_us = s.median;
  f.ci_low_us = s.ci_low;
  f.ci_high_us = s.ci_high;
  f.n_samples = s.n;
  if (bytes > 0) f.gbps = static_cast<double>(bytes) / (s.median * 1e3);
  f.detail = detail;
  return f;
}

// The grid r4_read_floor's detail names ("best grid B blocks x T threads"), for a resumed run.
std::pair<unsigned, unsigned> grid_of(const std::string& detail) {
  unsigned b = 0, t = 0;
  const auto at = detail.find("best grid ");
  if (at != std::string::npos)
    std::sscanf(detail.c_str() + at, "best grid %u blocks x %u threads", &b, &t);
  return {b, t};
}

}  // namespace

void load_floors(SweepContext& ctx) {
  for (const auto& f : ctx.store.floors(ctx.run)) {
    if (f.kind == db::FloorKind::launch) ctx.launch_floor_done = true;
    if (f.kind == db::FloorKind::read && f.bytes == kernels::read_floor_bytes(f.n, f.k))
      ctx.floor_grids[{f.n, f.k}] = grid_of(f.detail);
  }
}

void measure_floors(SweepContext& ctx, SweepWorker& worker, const ShapeSpec& sh) {
  const auto t0 = SweepClock::now();
  const auto bytes = kernels::read_floor_bytes(sh.n, sh.k);
  const bool have_launch = ctx.launch_floor_done;
  const bool have_read = ctx.floor_grids.count({sh.n, sh.k}) > 0;
  if (have_read && have_launch) return;
  const json rep = worker.call({{"op", "floors"}, {"launch", !have_launch}}, 300000);
  if (!rep.value("ok", false))
    throw std::runtime_error(fmt::format("measuring the floors of N={} K={} failed: {}", sh.n, sh.k,
                                         rep.value("error", std::string("?"))));
  RowBatch batch;
  if (!have_launch && rep.contains("launch")) {
    const auto samples = rep["launch"].at("samples").get<std::vector<double>>();
    batch.floors.push_back({floor_row(ctx, db::FloorKind::launch, 0, 0, 0, samples,
                                      rep["launch"].value("detail", std::string())),
                            {}});
    ctx.launch_floor_done = true;
  }
  if (!have_read) {
    const auto& r = rep.at("read");
    const auto samples = r.at("samples").get<std::vector<double>>();
    batch.floors.push_back({floor_row(ctx, db::FloorKind::read, sh.n, sh.k, bytes, samples,
                                      r.value("detail", std::string())),
                            {}});
    ctx.floor_grids[{sh.n, sh.k}] = {r.at("grid").at(0).get<unsigned>(),
                                     r.at("grid").at(1).get<unsigned>()};
  }
  ctx.write(std::move(batch));
  ctx.sec.floors += since(t0);
}

}  // namespace r4::tune
