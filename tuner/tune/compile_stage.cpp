#include "tuner/tune/compile_stage.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "db/sha256.hpp"
#include "kernels/family.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

// The `compiles` row of a fresh compile.
db::CompileRow compile_row(const Unit& u, const CompileOutcome& o, const gpu::Arch& arch,
                           const std::string& compiler) {
  const std::string kname(kernels::name(u.id));
  db::CompileRow row;
  row.cache_key = o.key;
  row.kernel = kname;
  row.config = to_db(u.config);
  row.arch = arch.name;
  row.source_hash = db::sha256_hex(u.request.source);
  for (const auto& op : o.result.options) row.options += op + "\n";
  for (const auto& d : u.request.defines) row.options += "-D" + d + "\n";
  row.compiler_version = compiler;
  row.compile_seconds = o.result.seconds;
  row.log = (u.injected.empty() ? "" : "TEST-INJECTED FAULT: " + u.injected + "\n") +
            (o.shared_body ? "shared body: the binary of another SK's compile in this sweep "
                             "(kernels/config.hpp sk_define), compile_seconds 0\n"
                           : "") +
            o.result.log;
  row.status = db::CompileStatus::compile_error;
  if (o.result.ok) {
    const auto it = o.result.resources.find(kname);
    const gpu::Resources res = it != o.result.resources.end() ? it->second : gpu::Resources{};
    row.registers = res.registers;
    row.spill_bytes = res.spill_stores + res.spill_loads;
    row.stack_bytes = res.stack_bytes;
    row.shared_bytes = res.shared_bytes;
    row.status = res.spills() ? db::CompileStatus::spills : db::CompileStatus::ok;
    row.binary = o.result.binary;
  }
  return row;
}

void set_keys(Plan& plan, const std::string& compiler_version, int threads) {
  // A request hashes its whole source and headers (~100 KB): 2,480 of them hashed one after
  // another, twice, took seconds of the serial start of every sweep on the H200's host
  // (2026-12-01), before any GPU works.
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < plan.units.size();) {
      auto& u = plan.units[i];
      u.body_key = compile_body_key(u.request, compiler_version);
      u.key = launch_keyed(u.body_key, u.request.launch_key);
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n = std::min<std::size_t>(threads > 0 ? static_cast<unsigned>(threads) : hw,
                                              std::max<std::size_t>(1, plan.units.size() / 64));
  std::vector<std::jthread> pool;
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
}

std::vector<std::size_t> compile_order(const Plan& plan, const Spec& spec, const gpu::Arch& arch) {
  const auto ms = measured_ms(spec);  // ascending
  std::vector<std::pair<int, std::size_t>> keyed;
  for (std::size_t i = 0; i < plan.units.size(); ++i) {
    const auto& u = plan.units[i];
    int first = std::numeric_limits<int>::max();
    for (int m : ms) {
      for (const auto& sh : spec.shapes)
        if (kernels::is_valid(u.id, u.config, arch, {sh.n, sh.k, m})) first = std::min(first, m);
      if (first != std::numeric_limits<int>::max()) break;
    }
    keyed.emplace_back(first, i);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> order;
  for (const auto& [first, i] : keyed) order.push_back(i);
  return order;
}

std::vector<std::size_t> units_needed(const Plan& plan, const gpu::Arch& arch, const ShapeSpec& sh,
                                      int m) {
  std::vector<std::size_t> needed;
  for (std::size_t i = 0; i < plan.units.size(); ++i)
    if (kernels::is_valid(plan.units[i].id, plan.units[i].config, arch, {sh.n, sh.k, m}))
      needed.push_back(i);
  return needed;
}

void compile_stage(SweepContext& ctx, Plan& plan, gpu::Backend& backend,
                   const CompileOverlap& overlap) {
  const auto tc = SweepClock::now();
  // Without an overlap there is no other thread to guard against: a local mutex stands in.
  std::mutex own_mu;
  std::mutex& store_mu = overlap.store_mu ? *overlap.store_mu : own_mu;
  const auto order = compile_order(plan, ctx.spec, ctx.arch);
  std::vector<gpu::CompileRequest> reqs;
  std::vector<std::string> keys, body_keys;
  bool have_keys = true;
  for (std::size_t i : order) {
    const auto& u = plan.units[i];
    reqs.push_back(u.request);
    keys.push_back(u.key);
    body_keys.push_back(u.body_key);
    have_keys = have_keys && !u.key.empty() && !u.body_key.empty();
  }
  const auto mode = overlap.plain_progress && ctx.opt.progress == ProgressMode::live
                        ? ProgressMode::plain
                        : ctx.opt.progress;
  Progress prog(mode, "compile", reqs.size());
  std::size_t cached = 0, bad = 0, spilled = 0, shared = 0;
  const std::string compiler = backend.compiler_version();
  // A hit's row is read once (binary included) and linked to the run with the others in one
  // transaction after the stage: a warm sweep of 2,480 configs read each row twice and committed
  // 2,480 transactions before (3.8 s of its serial start on the H200's host, 2026-12-01).
  std::map<std::string, db::CompileRow> hits;
  std::vector<db::Id> linked;
  CompileCache cache{[&](const std::string& key) -> std::optional<gpu::CompileResult> {
                       std::unique_lock lock(store_mu);
                       auto row = ctx.store.find_compile(key);
                       lock.unlock();
                       if (!row) return std::nullopt;
                       gpu::CompileResult r;
                       r.ok = row->status == db::CompileStatus::ok ||
                              row->status == db::CompileStatus::spills;
                       r.log = row->log;
                       r.seconds = row->compile_seconds;
                       hits[key] = std::move(*row);  // the binary goes to the worker from here
                       return r;
                     },
                     nullptr, have_keys ? &keys : nullptr, have_keys ? &body_keys : nullptr};
  // Beside racing, one core is left to the worker and the driver, whose every step waits on it.
  const int threads = ctx.opt.threads > 0 || !overlap.tracker
                          ? ctx.opt.threads
                          : static_cast<int>(std::max(2u, std::thread::hardware_concurrency()) - 1);
  auto outcomes = compile_all(
      backend, reqs, cache, threads,
      [&](std::size_t j, const CompileOutcome& o) {
        const std::size_t i = order[j];
        auto& u = plan.units[i];
        u.key = o.key;
        db::CompileRow row;
        std::unique_lock lock(store_mu);
        if (o.from_cache) {
          ++cached;
          // Moved, not copied: the binaries of a warm sweep are ~100 MB. A key the plan holds
          // twice finds its row taken by the first; it is read again then.
          auto node = hits.extract(o.key);
          row = node ? std::move(node.mapped()) : *ctx.store.find_compile(o.key);
          u.compile_id = row.id;
          linked.push_back(row.id);
        } else {
          if (o.shared_body) ++shared;
          row = compile_row(u, o, ctx.arch, compiler);
          u.compile_id = ctx.store.insert_compile(row, ctx.run);
        }
        lock.unlock();
        u.ok = row.status == db::CompileStatus::ok;
        if (row.status == db::CompileStatus::spills) ++spilled;
        if (row.status == db::CompileStatus::compile_error) {
          ++bad;
          prog.note(fmt::format("compile failed: {} {}: {}", kernels::name(u.id),
                                kernels::to_string(u.config), row.log.substr(0, 300)));
        }
        if (u.ok && !ctx.binary_dir.empty()) {
          u.binary_path = ctx.binary_dir + "/" + u.key + ".bin";
          std::ofstream(u.binary_path, std::ios::binary)
              .write(reinterpret_cast<const char*>(row.binary.data()),
                     static_cast<std::streamsize>(row.binary.size()));
        }
        if (overlap.tracker) overlap.tracker->done(i);
        prog.advance(
            1, fmt::format("{} cached, {} failed, {} spilled (pruned)", cached, bad, spilled));
      },
      overlap.cancel);
  (void)outcomes;
  {
    std::lock_guard lock(store_mu);
    ctx.store.link_compiles(ctx.run, linked);
  }
  prog.finish(fmt::format(
      "{} compiled in {} compiler runs (SK 2, 4 and 8 share a body), {} from cache, {} failed, {} "
      "pruned for spills",
      reqs.size() - cached, reqs.size() - cached - shared, cached, bad, spilled));
  ctx.sec.compile += since(tc);  // += : the step stage compiles its bf16-activation kernels too
}

}  // namespace r4::tune
