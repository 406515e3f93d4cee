// The state a sweep's stages share (tuner/tune/sweep.cpp is the driver that calls them in
// order): the options, the spec, the database and its run, what a --resume found done, the
// running tallies and where the time went. Passed to each stage explicitly; nothing global.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "db/store.hpp"
#include "kernels/family.hpp"
#include "tuner/gpu/arch.hpp"
#include "tuner/tune/checked_set.hpp"
#include "tuner/tune/hung_set.hpp"
#include "tuner/tune/row_batch.hpp"
#include "tuner/tune/row_sink.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/sweep.hpp"

namespace r4::tune {

using SweepClock = std::chrono::steady_clock;

// A failure that stops the whole sweep, not just the race at hand (a build that faults
// everywhere): every worker stops after its race in flight, the run is left partial.
class SweepStop : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Wall seconds since t0.
[[nodiscard]] inline double since(SweepClock::time_point t0) {
  return std::chrono::duration<double>(SweepClock::now() - t0).count();
}

// Wall seconds per phase of this invocation, reported at the end (where a sweep's time goes).
struct PhaseSeconds {
  double open = 0, compile = 0, shapes = 0, verify = 0, race_setup = 0, sampling = 0, store = 0,
         total = 0, floors = 0, steps = 0;
  // Wall clock of the driver: from its start to the first race, and the races (with the stages
  // after them: steps). With several GPUs the rest of `total` is what they cannot share.
  double before_races = 0, racing = 0;
  // With the compile stage beside the races: the part of `compile` after the first race began,
  // and the races' waits for the units they needed; the configs compiled when it began.
  double compile_beside = 0, compile_wait = 0;
  std::size_t compiled_at_first_race = 0;
  // Inside race setup, as the worker reports it.
  double setup_workspace = 0, setup_baselines = 0, setup_candidates = 0, setup_warmup = 0;
};

// What this invocation did so far, for the progress lines.
struct SweepTally {
  std::size_t verified = 0, verify_failed = 0, timed = 0, raced_out = 0, failed = 0;
  int consecutive_faults = 0;   // checks in a row that crashed the worker or timed out
  std::size_t wrong_lines = 0;  // wrong or not-run checks reported as they happened (verify_stage)
};

struct Plan;
class CompileTracker;

// A context is the sweep's (the driver's), a device group's (one run per GPU model, --allow-mixed)
// or one worker's (a host dispatcher gives each worker thread a copy: its own GPU, ceiling,
// tallies and random stream, the group's run, plan and resume state).
struct SweepContext {
  SweepContext(const SweepOptions& options, const Spec& sweep_spec, db::Store& db)
      : opt(options), spec(sweep_spec), store(db) {}

  const SweepOptions& opt;
  const Spec& spec;
  // The database. Only the driver's thread of the process that holds it reads or writes it
  // directly (run rows, compiles); the stages that run on workers write through write().
  db::Store& store;
  RowSink* sink = nullptr;       // where write() sends rows; none: straight into `store`
  std::optional<db::Id> gpu_id;  // the GPU this context's worker times on, stamped on its rows
  Plan* plan = nullptr;          // the plan of this context's run (set once compiled)
  // Set while the compile stage runs beside the races: a race waits for the units it needs.
  CompileTracker* compiling = nullptr;
  int ranks = 1;    // the sweep's processes (MPI ranks)
  int workers = 1;  // GPUs whose phase seconds `sec` sums (the summary says so)
  db::Id run = 0;
  gpu::Arch arch;
  double ceiling_gbps = 0;  // the device's streaming-read ceiling (0: none measured)
  std::string binary_dir;   // compiled binaries for the worker; empty with --compile-only
  // Done before a --resume (and as this run goes): (compile, N, K, M) -> passed, shared with the
  // other lanes of this context's device group (checked_set.hpp); (N, K, M) races stored.
  std::shared_ptr<CheckedSet> checked = std::make_shared<CheckedSet>();
  // Configs (compile ids) whose check timed out, and where: not checked again (verify_stage.cpp);
  // shared with the other lanes of this context's device group (hung_set.hpp).
  std::shared_ptr<HungSet> hung = std::make_shared<HungSet>();
  std::set<std::tuple<std::int64_t, std::int64_t, int>> raced;
  // Each shape's read-floor grid (blocks, threads), for the step chains' read-floor paths; a
  // shape is here once its read floor is stored (floor_stage.hpp).
  std::map<std::pair<std::int64_t, std::int64_t>, std::pair<unsigned, unsigned>> floor_grids;
  bool launch_floor_done = false;  // the run's launch floor is stored (or another worker's job)
  SweepTally tally;
  PhaseSeconds sec;
  std::mt19937_64 rng{0x5eedULL};  // the races' seeds and orders: fixed, so a sweep replays

  // The stages' rows: the GPU stamped on, then to the sink (or the store).
  void write(RowBatch batch) {
    stamp_gpu(batch, gpu_id);
    if (sink)
      sink->write(std::move(batch));
    else
      (void)write_batch(store, batch);
  }
};

// Small conversions the stages share.
[[nodiscard]] inline std::string dtype_of(kernels::KernelId id) {
  switch (id) {
    case kernels::KernelId::gemm_w4a8_nt:
      return "w4a8";
    case kernels::KernelId::gemm_w4a8fp8_nt:
      return "w4a8fp8";
    case kernels::KernelId::gemm_mxfp4a8fp8_nt:
      return "mxfp4a8fp8";
    default:
      return "w4a16";
  }
}
[[nodiscard]] inline db::Config to_db(const kernels::Config& c) {
  return {c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st};
}
// The worker protocol's config: [WV, SK, MB, NPW, NT, GEN, ST] (tuner/worker/device_session.hpp;
// a reader takes a 5-array as generation 0).
[[nodiscard]] inline nlohmann::json config_json(const kernels::Config& c) {
  return nlohmann::json::array({c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st});
}
[[nodiscard]] inline kernels::Config from_db(const db::Config& c) {
  return {c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st};
}

}  // namespace r4::tune
