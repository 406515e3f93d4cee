// r4tune db runs | show RUN | merge OTHER.db | export --csv PATH  [--db PATH]
// Looks into, combines and exports tuning databases. Only `merge` writes (into --db).
// GCC 12 reports a false "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify (inlined std::string::assign) at -O2; the pointer is checked
// before use. Silenced for this file only, before any header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "reports/report_data.hpp"
#include "reports/step_view.hpp"
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

std::string opt2(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : std::string("-");
}

// The launch floor and each shape's read floor (schema v2), shapes in the spec's order.
void show_floors(const report::ReportData& d) {
  if (d.floors.empty()) return;
  fmt::print("\n  floors        launch {} us per launch (empty kernel, graph-replayed)\n",
             d.launch_floor() ? opt2(d.launch_floor()->median_us) : "-");
  fmt::print("  {:<20} {:>6} {:>6} {:>9} {:>9} {:>7}  {}\n", "read floor", "N", "K", "MB",
             "floor us", "GB/s", "detail");
  std::vector<const db::FloorRow*> reads;
  for (const auto& s : d.shapes)
    if (const auto* f = d.read_floor(s.n, s.k)) reads.push_back(f);
  for (const auto& f : d.floors)  // floors of other byte counts, or of unnamed shapes
    if (f.kind == db::FloorKind::read && std::find(reads.begin(), reads.end(), &f) == reads.end())
      reads.push_back(&f);
  for (const auto* f : reads)
    fmt::print("  {:<20} {:>6} {:>6} {:>9.2f} {:>9.2f} {:>7}  {}\n", d.shape_name(f->n, f->k), f->n,
               f->k, static_cast<double>(f->bytes) / 1e6, f->median_us,
               f->gbps ? fmt::format("{:.0f}", *f->gbps) : "-", f->detail);
}

// The step table (schema v2): per step, M and path.
void show_steps(const report::ReportData& d) {
  const auto t = report::step_table(d);
  if (t.lines.empty()) return;
  std::size_t w = 4;
  for (const auto& c : t.chains) {
    w = std::max(w, c.name.size());
    std::string chain;
    for (const auto& s : c.shapes) chain += (chain.empty() ? "" : " -> ") + s;
    fmt::print("\n  step {}: {} (read floors sum {} us)\n", c.name,
               chain.empty() ? "chain not recorded" : chain, opt2(c.floor_sum_us));
  }
  fmt::print("  {:<{}} {:>3} {:<15} {:>10} {:>8} {:>8} {:>8} {:>8}\n", "step", w, "M", "path",
             "us/step", "x bf16", "x fp8", "x floor", "launches");
  for (const auto& l : t.lines) {
    const auto& r = l.row;
    const bool failed = r.status == db::StepStatus::failed;
    fmt::print("  {:<{}} {:>3} {:<15} {:>10} {:>8} {:>8} {:>8} {:>8}{}\n", r.name, w, r.m,
               db::to_string(r.path), failed ? "failed" : opt2(r.median_us),
               opt2(l.speedup_vs_bf16), opt2(l.speedup_vs_fp8), opt2(l.x_floor_sum), r.launches,
               failed ? "  " + l.error : "");
  }
}

int show_run(const db::Store& store, const std::string& ref) {
  const auto r = resolve_run(store, ref);
  const auto d = db_call([&] { return report::load_report_data(store, r.id); });
  const auto& dev = d.device;
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
      "samples, {} baselines, {} winners, {} floors, {} steps\n",
      c.compiles, c.checks, c.checks_failed, c.measurements, c.measurements_ok, c.samples,
      c.baselines, c.winners, c.floors, c.steps);
  {
    // Configs (compiles this run planned) and winners per kernel generation.
    std::map<int, std::pair<int, int>> per_gen;
    for (const auto& cp : d.compiles) ++per_gen[cp.config.gen].first;
    for (const auto& w : d.winners) ++per_gen[w.config.gen].second;
    std::string line;
    for (const auto& [gen, n] : per_gen)
      line += fmt::format("{}{}: {} configs, {} winners", line.empty() ? "" : "; ",
                          db::generation_name(gen), n.first, n.second);
    if (!line.empty()) fmt::print("  generations   {}\n", line);
  }
  show_floors(d);
  if (!d.winners.empty()) {
    // The config in its generation's knob order: (WV,SK,MB,NPW,NT) for mma_sync, with ST after
    // NT for sm90a.
    fmt::print("\n  {:<14} {:<6} {:>6} {:>6} {:>5}  {:<8} {:<21} {:>10} {:>8} {:>8} {:>9} {:>8}\n",
               "kernel", "dtype", "N", "K", "M<=", "gen", "(WV,SK,MB,NPW,NT[,ST])", "median us",
               "x bf16", "x fp8", "floor us", "x floor");
    for (const auto& w : d.winners) {
      std::string knobs = db::knob_tuple(w.config);
      knobs.erase(std::remove(knobs.begin(), knobs.end(), ' '), knobs.end());
      fmt::print(
          "  {:<14} {:<6} {:>6} {:>6} {:>5}  {:<8} {:<21} {:>10.2f} {:>8} {:>8} {:>9} {:>8}{}\n",
          w.kernel, w.dtype, w.n, w.k, w.band_limit, db::generation_name(w.config.gen), knobs,
          w.median_us, opt2(w.speedup_vs_bf16), opt2(w.speedup_vs_fp8), opt2(d.floor_us(w.n, w.k)),
          opt2(d.x_floor(w.median_us, w.n, w.k)),
          w.problem.empty() ? "" : "  INVALID: " + w.problem);
    }
  }
  show_steps(d);
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
