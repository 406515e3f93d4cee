// Shared by the database subcommands (db, emit, report): open the database the way each needs,
// resolve a run reference, write an output file, and turn database errors into InputError (exit
// 3) with a message that names the file.
#pragma once

#include <string>

#include <boost/program_options/variables_map.hpp>

#include "db/store.hpp"

namespace r4::cli {

// A string option's value, or "" when absent.
[[nodiscard]] std::string get_or(const boost::program_options::variables_map& vm, const char* name);

inline constexpr const char* kDefaultDb = "r4tune.db";

// Read commands never write: the file must exist and is opened read-only. Its winners are
// re-validated with tune::kernel_config_validator() (kernels::is_valid).
[[nodiscard]] db::Store open_db_read(const std::string& path);
// Write commands (merge) create or migrate it.
[[nodiscard]] db::Store open_db_write(const std::string& path);
[[nodiscard]] db::RunRow resolve_run(const db::Store& store, const std::string& ref);
// Writes via a temporary file and a rename, so a failed write never leaves half a file.
void write_output(const std::string& path, const std::string& text);

// Where `report --csv X.csv` writes the step table: X.steps.csv (X.steps.csv also for a name
// without .csv: it is appended).
[[nodiscard]] std::string steps_csv_path(const std::string& csv);

// Runs f(), turning r4::db::Error into InputError.
template <class F>
auto db_call(F&& f) -> decltype(f());

}  // namespace r4::cli

#include "tuner/cli/command.hpp"

namespace r4::cli {

template <class F>
auto db_call(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const db::Error& e) {
    throw InputError(e.what());
  }
}

}  // namespace r4::cli
