// r4tune db runs | show RUN | merge OTHER.db | export --csv PATH  [--db PATH]
// Looks into, combines and exports tuning databases. Only `merge` writes (into --db).
// GCC 12 reports a false "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify (inlined std::string::assign) at -O2; the pointer is checked
// before use. Silenced for this file only, before any header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <filesystem>

#include <fmt/core.h>

#include "tuner/cli/command.hpp"
#include "tuner/cli/db_access.hpp"
#include "tuner/cli/options.hpp"

namespace r4::cli {

namespace {

int list_runs(const db::Store& store) {
  const auto runs = db_call([&] { return store.list_runs(); });
  if (runs.empty()) {
    fmt::print("no runs in '{}'\n", store.path());
    return ok;
  }
  fmt::print("{:>4}  {:<36}  {:<9}  {:<20}  {:<26}  {:>8}  {}\n", "id", "uuid", "status", "started",
             "device", "winners", "spec");
  for (const auto& r : runs) {
    const auto dev = db_call([&] { return store.run_device(r); });
    const auto c = db_call([&] { return store.counts(r.id); });
    fmt::print("{:>4}  {:<36}  {:<9}  {:<20}  {:<26.26}  {:>8}  {}\n", r.id, r.uuid,
               db::to_string(r.status), r.started_at, dev ? dev->name + " " + dev->arch : "-",
               c.winners, r.spec_name);
  }
  return ok;
}

int show_run(const db::Store& store, const std::string& ref) {
  const auto r = resolve_run(store, ref);
  const auto dev = db_call([&] { return store.run_device(r); });
  const auto c = db_call([&] { return store.counts(r.id); });
  fmt::print("run {} ({})\n", r.id, r.uuid);
  fmt::print("  status        {}\n", db::to_string(r.status));
  fmt::print("  spec          {}\n", r.spec_name);
  fmt::print("  started       {}\n  finished      {}\n", r.started_at,
             r.finished_at.empty() ? "-" : r.finished_at);
  fmt::print("  r4tune / git  {} / {}\n  host          {}\n", r.r4tune_version, r.git_commit,
             r.host);
  if (dev)
    fmt::print("  device        {} ({}, {} SMs), driver {}, runtime {}, compiler {}\n", dev->name,
               dev->arch, dev->multiprocessors, dev->driver_version, dev->runtime_version,
               dev->compiler_version);
  if (!r.notes.empty()) fmt::print("  notes         {}\n", r.notes);
  fmt::print(
      "  rows          {} compiles, {} checks ({} not passing), {} measurements ({} ok), {} "
      "samples, {} baselines, {} winners\n",
      c.compiles, c.checks, c.checks_failed, c.measurements, c.measurements_ok, c.samples,
      c.baselines, c.winners);
  const auto winners = db_call([&] { return store.winners(r.id, db::OnInvalid::flag); });
  if (!winners.empty()) {
    fmt::print("\n  {:<14} {:<6} {:>6} {:>6} {:>5}  {:<18} {:>10} {:>8} {:>8}\n", "kernel", "dtype",
               "N", "K", "M<=", "(WV,SK,MB,NPW,NT)", "median us", "x bf16", "x fp8");
    for (const auto& w : winners) {
      auto sx = [](const std::optional<double>& v) {
        return v ? fmt::format("{:.2f}", *v) : std::string("-");
      };
      fmt::print("  {:<14} {:<6} {:>6} {:>6} {:>5}  {:<18} {:>10.2f} {:>8} {:>8}{}\n", w.kernel,
                 w.dtype, w.n, w.k, w.band_limit,
                 fmt::format("({},{},{},{},{})", w.config.wv, w.config.sk, w.config.mb,
                             w.config.npw, w.config.nt),
                 w.median_us, sx(w.speedup_vs_bf16), sx(w.speedup_vs_fp8),
                 w.problem.empty() ? "" : "  INVALID: " + w.problem);
    }
  }
  return ok;
}

}  // namespace

int run_db(std::span<const std::string> args) {
  po::options_description desc("options");
  // Values are read back from the map: binding std::string targets trips GCC 12's
  // -Wnull-dereference inside Boost's notify().
  desc.add_options()("db", po::value<std::string>()->default_value(kDefaultDb), "database file")(
      "csv", po::value<std::string>(), "export: the CSV file to write")(
      "action", po::value<std::string>(), "runs | show | merge | export")(
      "arg", po::value<std::string>(), "RUN for show, OTHER.db for merge");
  po::positional_options_description pos;
  pos.add("action", 1).add("arg", 1);
  po::variables_map vm;
  if (!parse(args,
             "r4tune db runs | show RUN | merge OTHER.db | export --csv PATH  [--db PATH]\n"
             "  RUN is a run id, a uuid (or a unique prefix), or 'latest'",
             desc, pos, vm))
    return ok;
  const std::string action = get_or(vm, "action"), arg = get_or(vm, "arg"),
                    db_path = get_or(vm, "db"), csv = get_or(vm, "csv");
  if (action.empty()) throw UsageError("missing action: runs, show, merge or export");

  if (action == "runs") {
    if (!arg.empty()) throw UsageError("'db runs' takes no argument");
    const auto store = open_db_read(db_path);
    return list_runs(store);
  }
  if (action == "show") {
    if (arg.empty()) throw UsageError("'db show' needs a run (id, uuid or 'latest')");
    const auto store = open_db_read(db_path);
    return show_run(store, arg);
  }
  if (action == "merge") {
    if (arg.empty()) throw UsageError("'db merge' needs the database to merge in");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(arg, ec))
      throw InputError(fmt::format("no database at '{}'", arg));
    if (std::filesystem::exists(db_path, ec) && std::filesystem::equivalent(arg, db_path, ec))
      throw UsageError("cannot merge a database into itself");
    // Check the source first, so a bad source never creates or touches the target.
    { const auto probe = open_db_read(arg); }
    auto store = open_db_write(db_path);
    const auto res = db_call([&] { return store.merge(arg); });
    fmt::print("merged '{}' into '{}': {} run(s) imported, {} already present\n", arg, db_path,
               res.runs_imported, res.runs_skipped);
    return ok;
  }
  if (action == "export") {
    if (csv.empty()) throw UsageError("'db export' needs --csv PATH");
    const auto store = open_db_read(db_path);
    const std::string tmp = csv + ".tmp";
    db_call([&] { store.export_csv(tmp); });
    std::error_code ec;
    std::filesystem::rename(tmp, csv, ec);
    if (ec) throw InputError(fmt::format("cannot write '{}': {}", csv, ec.message()));
    fmt::print("wrote '{}'\n", csv);
    return ok;
  }
  throw UsageError(fmt::format("unknown action '{}': use runs, show, merge or export", action));
}

}  // namespace r4::cli
