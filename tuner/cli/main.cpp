// r4tune: entry point and subcommand dispatch. Each subcommand parses its own options
// (Boost.Program_options) and owns its --help.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "tuner/cli/command.hpp"
#include "tuner/gpu/types.hpp"
#include "tuner/version.hpp"

namespace {

using r4::cli::Command;

// The subcommand table. Later issues add sweep and quant.
constexpr Command kCommands[] = {
    {"sweep", "tune a kernel family over a spec: compile, verify, measure, store",
     r4::cli::run_sweep},
    {"devices", "list GPUs and their properties (--json)", r4::cli::run_devices},
    {"compile", "compile a kernel source for an arch and print its resources",
     r4::cli::run_compile},
    {"db", "list, show, merge and export tuning databases", r4::cli::run_db},
    {"emit", "write a run's tables as Python, C++ or JSON", r4::cli::run_emit},
    {"report", "write a run's HTML and CSV report", r4::cli::run_report},
    {"quant", "quantise / pack / inspect safetensors weights (int4, mxfp4, gptq, inspect)",
     r4::cli::run_quant},
};

// Internal: the sweep's device worker, not listed in --help.
constexpr Command kWorker = {"worker", "", r4::cli::run_worker};

void print_help() {
  fmt::print(
      "usage: r4tune <command> [options]\n"
      "       r4tune --version | --help\n\n"
      "4-bit weight GEMM autotuner and benchmark harness.\n\ncommands:\n");
  for (const auto& c : kCommands) fmt::print("  {:<10} {}\n", c.name, c.summary);
  fmt::print(
      "\n'r4tune <command> --help' describes each command.\n"
      "exit codes: 0 ok, 1 failed, 2 usage error, 3 bad input, 4 no GPU where one is needed\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_help();
    return r4::cli::usage;
  }
  const std::string& sub = args[0];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    print_help();
    return r4::cli::ok;
  }
  if (sub == "--version") {
    fmt::print("r4tune {} ({})\n", r4::kVersion, r4::kGitCommit);
    return r4::cli::ok;
  }
  if (sub == kWorker.name) return kWorker.run({});
  for (const auto& c : kCommands) {
    if (sub != c.name) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
      return c.run(rest);
    } catch (const r4::cli::UsageError& e) {
      fmt::print(stderr, "r4tune {}: {}\n(see 'r4tune {} --help')\n", sub, e.what(), sub);
      return r4::cli::usage;
    } catch (const r4::cli::InputError& e) {
      fmt::print(stderr, "r4tune {}: {}\n", sub, e.what());
      return r4::cli::bad_input;
    } catch (const r4::gpu::ToolMissing& e) {  // a compiler to install: bad input, as a file
      fmt::print(stderr, "r4tune {}: {}\n", sub, e.what());
      return r4::cli::bad_input;
    } catch (const r4::gpu::Error& e) {
      fmt::print(stderr, "r4tune {}: GPU error: {}\n", sub, e.what());
      return r4::cli::failure;
    } catch (const std::exception& e) {
      fmt::print(stderr, "r4tune {}: {}\n", sub, e.what());
      return r4::cli::failure;
    }
  }
  fmt::print(stderr, "r4tune: unknown command '{}'\n(see 'r4tune --help')\n", sub);
  return r4::cli::usage;
}
