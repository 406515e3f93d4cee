#include "tuner/tune/run_record.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "tuner/gpu/device_json.hpp"
#include "tuner/version.hpp"

namespace r4::tune {

namespace {

// The commit the binary was built from (tuner/version.hpp, refreshed at every build): that is
// what produced the numbers, whatever the current folder's git says.
std::string git_commit() {
  return kGitCommit;
}

std::string hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

db::Id upsert_device(SweepContext& ctx, const gpu::DeviceInfo& device, gpu::Backend& backend) {
  db::DeviceRow d;
  d.name = device.name;
  d.vendor = std::string(gpu::to_string(device.vendor));
  d.arch = device.arch.name;
  d.multiprocessors = device.multiprocessors;
  d.l2_bytes = device.l2_bytes;
  d.llc_bytes = ctx.spec.pool.llc_bytes > 0 ? ctx.spec.pool.llc_bytes : device.llc_bytes;
  d.memory_bytes = device.memory_bytes;
  d.sm_clock_mhz = device.sm_clock_khz / 1000;
  d.memory_clock_mhz = device.memory_clock_khz / 1000;
  d.memory_bus_bits = device.memory_bus_bits;
  d.pci_bus_id = device.pci_bus_id;
  d.driver_version = device.driver_version;
  d.runtime_version = device.runtime_version;
  d.compiler_version = backend.compiler_version();
  d.info_json = gpu::to_json(device).dump();
  return ctx.store.upsert_device(d);
}

// The newest unfinished run of this spec on this device, and what it already did.
int resume_run(SweepContext& ctx, const std::optional<db::Id>& device_id) {
  for (const auto& r : ctx.store.list_runs())
    if (r.spec_name == ctx.spec.name && r.spec_text == ctx.spec.text &&
        (r.status == db::RunStatus::running || r.status == db::RunStatus::partial) &&
        r.device_id == device_id)
      ctx.run = r.id;  // list_runs is oldest first: the last match is the newest
  if (!ctx.run) {
    fmt::print(stderr,
               "r4tune sweep --resume: no unfinished run of spec '{}' on this device in {}\n",
               ctx.spec.name, ctx.opt.db_path);
    return 3;
  }
  // A run started with another rank count: its unfinished races are split over this launch's
  // ranks (the split is recomputed from what is left), so that is honoured; say so.
  if (const int before = ctx.store.run(ctx.run).ranks; before != ctx.ranks) {
    if (ctx.opt.progress != ProgressMode::quiet)
      fmt::print(
          stderr,
          "resuming run {} (started with {} rank{}) with {} rank{}: its unfinished races are "
          "split over these\n",
          ctx.run, before, before == 1 ? "" : "s", ctx.ranks, ctx.ranks == 1 ? "" : "s");
    ctx.store.set_run_ranks(ctx.run, ctx.ranks);
  }
  for (const auto& c : ctx.store.checks(ctx.run)) {
    ctx.checked->set({c.compile_id, c.n, c.k, c.m}, c.status == db::CheckStatus::pass);
    if (c.status == db::CheckStatus::timeout)
      ctx.hung->add(c.compile_id, fmt::format("N={} K={} M={}", c.n, c.k, c.m));
  }
  for (const auto& m : ctx.store.measurements(ctx.run))
    if (m.status != db::MeasurementStatus::failed) ctx.raced.insert({m.n, m.k, m.m});
  return 0;
}

void begin_run(SweepContext& ctx, const std::optional<db::Id>& device_id) {
  db::RunRow r;
  r.spec_name = ctx.spec.name;
  r.spec_text = ctx.spec.text;
  r.git_commit = git_commit();
  r.r4tune_version = kVersion;
  r.host = hostname();
  r.device_id = device_id;
  r.ranks = ctx.ranks;
  r.notes = ctx.opt.compile_only ? "compile-only: planned, compiled and pruned; nothing timed" : "";
  ctx.run = ctx.store.begin_run(r);
  for (const auto& sh : ctx.spec.shapes)
    if (!sh.name.empty()) ctx.store.set_shape_name(ctx.run, sh.n, sh.k, sh.name);
}

}  // namespace

std::string unresumable_runs(const SweepContext& ctx, const std::vector<db::Id>& present) {
  std::string out;
  std::map<std::optional<db::Id>, db::RunRow> newest;  // per device, as resume_run picks
  for (const auto& r : ctx.store.list_runs())
    if (r.spec_name == ctx.spec.name && r.spec_text == ctx.spec.text &&
        (r.status == db::RunStatus::running || r.status == db::RunStatus::partial) && r.device_id)
      newest[r.device_id] = r;
  for (const auto& [device, r] : newest) {
    if (r.ranks == ctx.ranks) continue;
    if (std::find(present.begin(), present.end(), *device) != present.end()) continue;
    const auto d = ctx.store.device(*device);
    out += fmt::format(
        "\n  run {} ({}) was started with {} MPI rank{} on {}; this launch has {} rank{} and no "
        "such GPU, so its unfinished races cannot be resumed here",
        r.id, r.uuid.substr(0, 8), r.ranks, r.ranks == 1 ? "" : "s",
        d ? d->name + " (" + d->arch + ")" : "an unknown device", ctx.ranks,
        ctx.ranks == 1 ? "" : "s");
  }
  return out;
}

db::Id record_device(SweepContext& ctx, const gpu::DeviceInfo& device, gpu::Backend& backend) {
  return upsert_device(ctx, device, backend);
}

int begin_or_resume_run(SweepContext& ctx, const std::optional<gpu::DeviceInfo>& device,
                        gpu::Backend& backend) {
  std::optional<db::Id> device_id;
  if (device && !ctx.opt.compile_only) device_id = upsert_device(ctx, *device, backend);
  if (ctx.opt.resume) return resume_run(ctx, device_id);
  begin_run(ctx, device_id);
  return 0;
}

}  // namespace r4::tune
