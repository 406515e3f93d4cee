#include "tuner/cli/db_access.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "tuner/cli/command.hpp"
#include "tuner/tune/config_validator.hpp"

namespace r4::cli {

std::string get_or(const boost::program_options::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : std::string();
}

db::Store open_db_read(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(
        fmt::format("no database at '{}' (pass --db PATH; `r4tune sweep` creates one)", path));
  auto store = db_call([&] { return db::Store::open_read_only(path); });
  // Winners read back go through the kernel family's one is_valid, generation and ST included.
  store.set_config_validator(tune::kernel_config_validator());
  return store;
}

db::Store open_db_write(const std::string& path) {
  return db_call([&] { return db::Store::open(path); });
}

db::RunRow resolve_run(const db::Store& store, const std::string& ref) {
  return db_call([&] { return store.resolve_run(ref); });
}

std::string steps_csv_path(const std::string& csv) {
  const std::string ext = ".csv";
  if (csv.size() > ext.size() && csv.compare(csv.size() - ext.size(), ext.size(), ext) == 0)
    return csv.substr(0, csv.size() - ext.size()) + ".steps.csv";
  return csv + ".steps.csv";
}

void write_output(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path));
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(fmt::format("error writing '{}'", path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, ec.message()));
  }
}

}  // namespace r4::cli
