// r4tune sweep SPEC: the tuner end to end (tuner/tune/sweep.hpp).
#include <fmt/core.h>

#include "db/sqlite.hpp"
#include "db/store.hpp"
#include "tuner/cli/command.hpp"
#include "tuner/cli/options.hpp"
#include "tuner/tune/device_select.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep.hpp"

namespace r4::cli {

int run_sweep(std::span<const std::string> args) {
  po::options_description desc("options");
  tune::SweepOptions o;
  desc.add_options()("spec", po::value(&o.spec_path)->required(), "sweep spec (configs/*.toml)")(
      "db", po::value(&o.db_path)->default_value("r4tune.db"), "SQLite database")(
      "resume", "continue the newest unfinished run of this spec on this device")(
      "compile-only", "plan, compile and prune; time nothing (works without a GPU)")(
      "arch", po::value(&o.arch),
      "target arch for --compile-only (default: the device's, else "
      "the spec's compile.arch)")("device", po::value(&o.device)->default_value(0), "GPU index")(
      "devices", po::value(&o.devices),
      "time on several GPUs of this host, one worker each: 'all' or indices like 0,2,3 (under "
      "MPI: each rank's share of its host's GPUs; default all)")(
      "allow-mixed",
      "GPUs of different models: time each model as its own run with its own "
      "winners (refused otherwise)")(
      "dispatch-log", po::value(&o.dispatch_log),
      "append the dispatcher's JSON-lines log here: each race's worker and time, each GPU's "
      "busy and idle seconds")("rank-timeout-s", po::value(&o.rank_timeout_s)->default_value(120),
                               "under MPI: a rank silent for this long is reported failed")(
      "threads", po::value(&o.threads)->default_value(0), "compile threads (0: all cores)")(
      "quiet,q", "no progress output")("json", "print the closing summary as JSON on stdout")(
      "plain", "plain progress lines even on a terminal")(
      "verify-timeout-ms", po::value(&o.verify_timeout_ms)->default_value(30000),
      "a verification slower than this is killed and recorded as a timeout")(
      "sample-timeout-ms", po::value(&o.sample_timeout_ms)->default_value(30000),
      "a timing sample slower than this is killed and recorded as a failure")(
      "max-consecutive-faults", po::value(&o.max_consecutive_faults)->default_value(32),
      "stop the sweep (resumable) after this many checks in a row crash or time out")(
      "worker", po::value<std::string>(),
      "program to run as the device worker (default: this binary's `worker`; the tests use a "
      "replay worker)");
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  if (!parse(args,
             "r4tune sweep SPEC [--db PATH] [--resume] [--compile-only] [--devices all|0,2,3] "
             "[options]\n"
             "       mpirun -n N r4tune sweep SPEC ... (docs/TUNER.md)",
             desc, pos, vm))
    return ok;
  if (vm.count("worker")) o.worker_argv = {vm["worker"].as<std::string>()};
  o.resume = vm.count("resume") > 0;
  o.compile_only = vm.count("compile-only") > 0;
  o.allow_mixed = vm.count("allow-mixed") > 0;
  if (!vm["device"].defaulted() && vm.count("devices"))
    throw UsageError(
        "--device and --devices: give one (--devices 0 is the same GPU as --device 0)");
  if (vm.count("devices")) {
    try {
      (void)tune::parse_devices(o.devices);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (o.rank_timeout_s < 1) throw UsageError("--rank-timeout-s must be at least 1");
  o.json = vm.count("json") > 0;
  o.progress = vm.count("quiet")   ? tune::ProgressMode::quiet
               : vm.count("plain") ? tune::ProgressMode::plain
                                   : tune::default_progress_mode();
  try {
    return tune::run_sweep(o);
  } catch (const tune::SpecError& e) {
    throw InputError(e.what());
  } catch (const db::Error& e) {
    throw InputError(fmt::format("database {}: {}", o.db_path, e.what()));
  }
}

}  // namespace r4::cli
