#include "tuner/tune/compile_stage.hpp"

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "db/sha256.hpp"
#include "kernels/family.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

namespace {

// A compile-cache hit, read back from the database.
std::optional<gpu::CompileResult> cached_compile(db::Store& store, const std::string& key) {
  auto row = store.find_compile(key);
  if (!row) return std::nullopt;
  gpu::CompileResult r;
  r.ok = row->status == db::CompileStatus::ok || row->status == db::CompileStatus::spills;
  r.log = row->log;
  r.binary = row->binary;
  r.seconds = row->compile_seconds;
  return r;
}

}  // namespace

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
  row.log = (u.injected.empty() ? "" : "TEST-INJECTED FAULT: " + u.injected + "\n") + o.result.log;
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

void compile_stage(SweepContext& ctx, Plan& plan, gpu::Backend& backend) {
  const auto tc = SweepClock::now();
  std::vector<gpu::CompileRequest> reqs;
  for (const auto& u : plan.units) reqs.push_back(u.request);
  Progress prog(ctx.opt.progress, "compile", reqs.size());
  std::size_t cached = 0, bad = 0, spilled = 0;
  const std::string compiler = backend.compiler_version();
  CompileCache cache{[&](const std::string& key) { return cached_compile(ctx.store, key); },
                     nullptr};
  auto outcomes = compile_all(
      backend, reqs, cache, ctx.opt.threads, [&](std::size_t i, const CompileOutcome& o) {
        auto& u = plan.units[i];
        u.key = o.key;
        db::CompileRow row;
        if (o.from_cache) {
          ++cached;
          auto existing = ctx.store.find_compile(o.key);
          u.compile_id = existing->id;
          ctx.store.link_compile(ctx.run, u.compile_id);
          row = *existing;
        } else {
          row = compile_row(u, o, ctx.arch, compiler);
          u.compile_id = ctx.store.insert_compile(row, ctx.run);
        }
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
        prog.advance(
            1, fmt::format("{} cached, {} failed, {} spilled (pruned)", cached, bad, spilled));
      });
  (void)outcomes;
  prog.finish(fmt::format("{} compiled, {} from cache, {} failed, {} pruned for spills",
                          reqs.size() - cached, cached, bad, spilled));
  ctx.sec.compile += since(tc);  // += : the step stage compiles its bf16-activation kernels too
}

}  // namespace r4::tune
