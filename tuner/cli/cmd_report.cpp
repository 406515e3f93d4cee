// r4tune report --run ID|latest [--html PATH] [--csv PATH] [--db PATH]
// Writes one run's HTML report (self-contained, offline) and/or its CSV (and the step table's CSV
// next to it: X.csv -> X.steps.csv). Read-only on the DB.
// GCC 12 reports a false "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify (inlined std::string::assign) at -O2; the pointer is checked
// before use. Silenced for this file only, before any header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <fmt/core.h>

#include "reports/report.hpp"
#include "tuner/cli/command.hpp"
#include "tuner/cli/db_access.hpp"
#include "tuner/cli/options.hpp"

namespace r4::cli {

int run_report(std::span<const std::string> args) {
  po::options_description desc("options");
  desc.add_options()("db", po::value<std::string>()->default_value(kDefaultDb), "database file")(
      "run", po::value<std::string>()->default_value("latest"),
      "run id, uuid (or unique prefix), or 'latest'")(
      "html", po::value<std::string>(), "HTML report to write")("csv", po::value<std::string>(),
                                                                "CSV to write");
  po::variables_map vm;
  if (!parse(args, "r4tune report --run ID|latest [--html PATH] [--csv PATH] [--db PATH]", desc, {},
             vm))
    return ok;
  const std::string run = get_or(vm, "run"), html = get_or(vm, "html"), csv = get_or(vm, "csv"),
                    db_path = get_or(vm, "db");
  if (html.empty() && csv.empty()) throw UsageError("give --html PATH, --csv PATH or both");
  const auto store = open_db_read(db_path);
  const auto r = resolve_run(store, run);
  if (!html.empty()) {
    write_output(html, db_call([&] { return report::report_html(store, r.id); }));
    fmt::print(stderr, "wrote '{}'\n", html);
  }
  if (!csv.empty()) {
    write_output(csv, db_call([&] { return report::report_csv(store, r.id); }));
    fmt::print(stderr, "wrote '{}'\n", csv);
    // The step table has other columns, so it gets its own file next to the first (written even
    // when the run has no steps, header only, so a stale one never outlives its report).
    const std::string steps = steps_csv_path(csv);
    write_output(steps, db_call([&] { return report::report_steps_csv(store, r.id); }));
    fmt::print(stderr, "wrote '{}'\n", steps);
  }
  return ok;
}

}  // namespace r4::cli
