#include "tuner/tune/compile_split.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "kernels/family.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/progress.hpp"
#include "tuner/tune/ranks.hpp"

namespace r4::tune {

using nlohmann::json;

namespace {

json bytes_json(const std::vector<std::byte>& b) {
  std::vector<std::uint8_t> v(b.size());
  if (!b.empty()) std::memcpy(v.data(), b.data(), b.size());
  return json::binary(std::move(v));
}

std::vector<std::byte> bytes_from(const json& j) {
  const auto& v = j.get_binary();
  std::vector<std::byte> out(v.size());
  if (!v.empty()) std::memcpy(out.data(), v.data(), v.size());
  return out;
}

json result_json(std::size_t i, const gpu::CompileResult& r) {
  json res = json::object();
  // By field name, not position: gpu::Resources gained AMD's SGPR and AGPR counts after this was
  // written, and a positional list then put every rank's shared bytes into its spill count.
  for (const auto& [name, x] : r.resources)
    res[name] = {{"registers", x.registers},
                 {"sgprs", x.sgprs},
                 {"agprs", x.agprs},
                 {"spill_stores", x.spill_stores},
                 {"spill_loads", x.spill_loads},
                 {"stack_bytes", x.stack_bytes},
                 {"shared_bytes", x.shared_bytes},
                 {"max_threads", x.max_threads}};
  return {{"i", i},
          {"ok", r.ok},
          {"log", r.log},
          {"seconds", r.seconds},
          {"options", r.options},
          {"resources", res},
          {"binary", bytes_json(r.binary)}};
}

gpu::CompileResult result_from(const json& j) {
  gpu::CompileResult r;
  r.ok = j.at("ok");
  r.log = j.at("log");
  r.seconds = j.at("seconds");
  r.options = j.at("options").get<std::vector<std::string>>();
  for (const auto& [name, x] : j.at("resources").items()) {
    gpu::Resources& g = r.resources[name];
    g.registers = x.at("registers");
    g.sgprs = x.at("sgprs");
    g.agprs = x.at("agprs");
    g.spill_stores = x.at("spill_stores");
    g.spill_loads = x.at("spill_loads");
    g.stack_bytes = x.at("stack_bytes");
    g.shared_bytes = x.at("shared_bytes");
    g.max_threads = x.at("max_threads");
  }
  r.binary = bytes_from(j.at("binary"));
  return r;
}

void write_binary(Unit& u, const std::string& dir, const std::vector<std::byte>& binary) {
  if (dir.empty() || !u.ok) return;
  u.binary_path = dir + "/" + u.key + ".bin";
  std::ofstream(u.binary_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(binary.data()),
             static_cast<std::streamsize>(binary.size()));
}

}  // namespace

void compile_split(SweepContext& ctx, Plan& plan, gpu::Backend& backend, mpi::World& world) {
  const auto tc = SweepClock::now();
  const std::string compiler = backend.compiler_version();
  {
    std::string differ;
    const auto all = world.allgather(compiler);
    for (std::size_t r = 0; r < all.size(); ++r)
      if (all[r] != all[0]) differ += fmt::format("; rank {}: {}", r, all[r]);
    if (!differ.empty())
      throw std::runtime_error(fmt::format(
          "the ranks compile with different compilers (rank 0: {}{}); the compile cache is keyed "
          "by the compiler, so every rank must use the same CUDA / ROCm toolkit",
          all[0], differ));
  }
  const std::size_t n = plan.units.size();
  if (std::any_of(plan.units.begin(), plan.units.end(),
                  [](const Unit& u) { return u.key.empty() || u.body_key.empty(); }))
    set_keys(plan, compiler, ctx.opt.threads);

  // Rank 0: which are cached.
  json cached = json::array();
  if (world.root())
    for (const auto& u : plan.units) cached.push_back(ctx.store.has_compile(u.key));
  cached = share(world, cached);

  // This rank's share of the rest: bodies round-robin in plan order, each with every unit that
  // shares it (the SKs of kernels/config.hpp sk_define), so that no body compiles twice.
  std::vector<std::size_t> todo, mine;
  std::map<std::string, std::size_t> body_index;
  for (std::size_t i = 0; i < n; ++i) {
    if (cached.at(i).get<bool>()) continue;
    todo.push_back(i);
    const auto [it, fresh] = body_index.emplace(plan.units[i].body_key, body_index.size());
    if (it->second % static_cast<std::size_t>(world.size()) ==
        static_cast<std::size_t>(world.rank()))
      mine.push_back(i);
  }
  std::vector<gpu::CompileRequest> reqs;
  std::vector<std::string> keys, body_keys;
  for (std::size_t i : mine) {
    reqs.push_back(plan.units[i].request);
    keys.push_back(plan.units[i].key);
    body_keys.push_back(plan.units[i].body_key);
  }
  Progress prog(world.root() ? ctx.opt.progress : ProgressMode::quiet, "compile", reqs.size());
  const auto outcomes =
      compile_all(backend, reqs, CompileCache{nullptr, nullptr, &keys, &body_keys}, ctx.opt.threads,
                  [&](std::size_t, const CompileOutcome&) { prog.advance(1); });
  prog.finish(fmt::format("rank 0 compiled {} of the {} configs to compile ({} ranks)", reqs.size(),
                          todo.size(), world.size()));
  json results = json::array();
  for (std::size_t j = 0; j < mine.size(); ++j) {
    results.push_back(result_json(mine[j], outcomes[j].result));
    results.back()["shared_body"] = outcomes[j].shared_body;
  }

  // Every rank gets every fresh result.
  std::vector<gpu::CompileResult> fresh(n);
  std::vector<int> compiled_by(n, -1);
  std::vector<bool> shared_body(n, false);
  {
    const auto all = world.allgather(pack(results));
    for (std::size_t r = 0; r < all.size(); ++r)
      for (const auto& j : unpack(all[r])) {
        const std::size_t i = j.at("i");
        fresh[i] = result_from(j);
        compiled_by[i] = static_cast<int>(r);
        shared_body[i] = j.at("shared_body").get<bool>();
      }
  }

  // Rank 0 stores them and sends back ids, statuses and the cached binaries.
  json stored = json::array();
  if (world.root()) {
    std::size_t from_cache = 0, bad = 0, spilled = 0;
    for (std::size_t i = 0; i < n; ++i) {
      auto& u = plan.units[i];
      db::CompileRow row;
      json one;
      if (cached.at(i).get<bool>()) {
        ++from_cache;
        row = *ctx.store.find_compile(u.key);
        ctx.store.link_compile(ctx.run, row.id);
        if (!ctx.opt.compile_only && row.status == db::CompileStatus::ok)
          one["binary"] = bytes_json(row.binary);
      } else {
        CompileOutcome o{u.key, fresh[i], false, shared_body[i]};
        row = compile_row(u, o, ctx.arch, compiler);
        row.id = ctx.store.insert_compile(row, ctx.run);
      }
      if (row.status == db::CompileStatus::spills) ++spilled;
      if (row.status == db::CompileStatus::compile_error) {
        ++bad;
        if (ctx.opt.progress != ProgressMode::quiet)
          fmt::print(stderr, "compile failed (rank {}): {} {}: {}\n", compiled_by[i],
                     kernels::name(u.id), kernels::to_string(u.config), row.log.substr(0, 300));
      }
      one["id"] = row.id;
      one["ok"] = row.status == db::CompileStatus::ok;
      stored.push_back(std::move(one));
    }
    if (ctx.opt.progress != ProgressMode::quiet)
      fmt::print(stderr,
                 "compile: {} compiled over {} ranks, {} from cache, {} failed, {} pruned for "
                 "spills\n",
                 n - from_cache, world.size(), from_cache, bad, spilled);
  }
  stored = share(world, stored);
  for (std::size_t i = 0; i < n; ++i) {
    auto& u = plan.units[i];
    const auto& s = stored.at(i);
    u.compile_id = s.at("id");
    u.ok = s.at("ok");
    write_binary(u, ctx.binary_dir,
                 s.contains("binary") ? bytes_from(s.at("binary")) : fresh[i].binary);
  }
  ctx.sec.compile = since(tc);
}

}  // namespace r4::tune
