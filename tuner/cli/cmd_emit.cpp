// r4tune emit --run ID|latest --format python|cpp|json [--out PATH] [--db PATH]
// Writes one run's winners as generated tables (docs/DB.md "Emit formats"). Read-only on the DB.
// GCC 12 reports a false "potential null pointer dereference" inside Boost.Program_options'
// typed_value<std::string>::notify (inlined std::string::assign) at -O2; the pointer is checked
// before use. Silenced for this file only, before any header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <iostream>

#include <fmt/core.h>

#include "reports/emit.hpp"
#include "tuner/cli/command.hpp"
#include "tuner/cli/db_access.hpp"
#include "tuner/cli/options.hpp"

namespace r4::cli {

int run_emit(std::span<const std::string> args) {
  po::options_description desc("options");
  desc.add_options()("db", po::value<std::string>()->default_value(kDefaultDb), "database file")(
      "run", po::value<std::string>()->default_value("latest"),
      "run id, uuid (or unique prefix), or 'latest'")(
      "format", po::value<std::string>()->required(), "python | cpp | json")(
      "out", po::value<std::string>(), "output file (default: standard output)");
  po::variables_map vm;
  if (!parse(args, "r4tune emit --run ID|latest --format python|cpp|json [--out PATH] [--db PATH]",
             desc, {}, vm))
    return ok;
  const std::string run = get_or(vm, "run"), format = get_or(vm, "format"), out = get_or(vm, "out"),
                    db_path = get_or(vm, "db");
  if (format != "python" && format != "cpp" && format != "json")
    throw UsageError(fmt::format("unknown --format '{}': use python, cpp or json", format));
  const auto store = open_db_read(db_path);
  const auto r = resolve_run(store, run);
  const std::string text = db_call([&] {
    if (format == "python") return report::emit_python(store, r.id);
    if (format == "cpp") return report::emit_cpp(store, r.id);
    return report::emit_json(store, r.id);
  });
  if (out.empty()) {
    std::cout << text;
    return ok;
  }
  write_output(out, text);
  fmt::print(stderr, "wrote '{}' from run {} ({})\n", out, r.id, r.uuid);
  return ok;
}

}  // namespace r4::cli
