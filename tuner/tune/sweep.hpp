// `r4tune sweep`: the tuner end to end (DESIGN.md "The pipeline"). One stage per file, called in
// order by the driver (sweep.cpp); the state they share is tuner/tune/sweep_context.hpp.
//   run     the device row, then a new run or the one --resume continues    (run_record.hpp)
//   plan    the spec's kernels x config space x shapes x M, minus what is_valid rejects (plan.hpp)
//   compile every config in parallel, cached in the database by content key; spills pruned
//           (compile_stage.hpp)
//   devices the workers, one per GPU, and which one times which race (dispatch.hpp; the driver's
//           handle on one worker: sweep_worker.hpp)
//   verify  every compiled config at every (shape, M) it would be timed at, on fresh random
//           inputs with a poisoned output, in the worker process; failures are recorded, never
//           timed (verify_stage.hpp)
//   measure per (shape, M): an interleaved race of every kernel's verified configs and the vendor
//           baselines over a pool of cold copies (race_stage.hpp over tuner/tune/race.hpp, sampled
//           by worker_sampler.hpp); finalists re-measured
//   store   every compile, check, measurement with its samples, baseline and winner; one race's
//           rows in one transaction, so a kill loses at most the race in flight and --resume
//           continues from the next one
//   summary the winners and where the time went, or JSON (summary.hpp)
#pragma once

#include <string>
#include <vector>

#include "tuner/tune/progress.hpp"

namespace r4::tune {

struct SweepOptions {
  std::string spec_path;
  std::string db_path = "r4tune.db";
  bool resume = false;
  bool compile_only = false;
  ProgressMode progress = ProgressMode::plain;
  bool json = false;  // the closing summary as JSON on stdout
  int device = 0;
  // Several GPUs (tuner/tune/host_dispatch.hpp): "all" or "0,2,3"; empty: one GPU, `device`.
  // Under MPI, empty means "all" (each rank takes its share of its host's GPUs).
  std::string devices;
  bool allow_mixed = false;  // time each GPU model as its own run instead of refusing
  std::string dispatch_log;  // the dispatcher's JSON-lines log (dispatch_log.hpp); empty: none
  // MPI: a rank not heard from for this long is reported failed (its races left for --resume).
  int rank_timeout_s = 120;
  std::string host_name;  // this host's name (set by run_sweep)
  std::string arch;       // compile-only target; default: the device's, else the spec's
  int threads = 0;        // compile threads; 0 = all cores
  std::vector<std::string> worker_argv;  // default: this binary's `worker` subcommand
  int verify_timeout_ms = 30000;
  int sample_timeout_ms = 30000;
  // This many checks in a row that crash the worker or time out stop the sweep (run left
  // partial, --resume continues): each costs a worker restart (~0.6 s on the H200) or a timeout,
  // so a build that faults everywhere would otherwise take hours (13,380 checks in dflash).
  int max_consecutive_faults = 32;
};

// Returns the process exit code (0 ok, 1 failed, 3 bad spec, 4 no device and not --compile-only).
[[nodiscard]] int run_sweep(const SweepOptions& opt);

}  // namespace r4::tune
