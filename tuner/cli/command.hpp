// The r4tune CLI: one file per subcommand (cmd_<name>.cpp), each exposing one run function that
// main.cpp lists. Exit codes are shared and documented in README.md.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace r4::cli {

enum Exit : int {
  ok = 0,
  failure = 1,    // the job ran and failed (compile error, wrong result, GPU error)
  usage = 2,      // unknown subcommand/option, missing argument
  bad_input = 3,  // a file or spec that is missing, malformed or inconsistent
  no_device = 4,  // the job needs a GPU and none is present
  interrupted = 130,
};

// Thrown by subcommands for bad command lines / inputs; main prints "r4tune <cmd>: <what>".
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// args excludes the program and subcommand names.
using RunFn = int (*)(std::span<const std::string> args);

struct Command {
  const char* name;
  const char* summary;
  RunFn run;
};

int run_devices(std::span<const std::string> args);
int run_compile(std::span<const std::string> args);
int run_db(std::span<const std::string> args);
int run_emit(std::span<const std::string> args);
int run_report(std::span<const std::string> args);
int run_sweep(std::span<const std::string> args);
int run_worker(std::span<const std::string> args);
int run_quant(std::span<const std::string> args);

}  // namespace r4::cli
