// The sweep driver: the stages in order (sweep.hpp says what each does), nothing else.
#include "tuner/tune/sweep.hpp"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "db/store.hpp"
#include "kernels/family.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/config_validator.hpp"
#include "tuner/tune/dispatch.hpp"
#include "tuner/tune/floor_stage.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/race_stage.hpp"
#include "tuner/tune/run_record.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/step_stage.hpp"
#include "tuner/tune/summary.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

namespace {

namespace fs = std::filesystem;

db::Store open_store(const std::string& path) {
  auto store = db::Store::open(path);
  store.set_config_validator(kernel_config_validator());
  return store;
}

// Where the compiled binaries wait for the worker; removed at the end.
std::string make_binary_dir() {
  char tmpl[] = "/tmp/r4tune-bin-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

// Every race of the plan, on the dispatcher's workers, then the stages that follow the races.
void measure(SweepContext& ctx, Plan& plan, Dispatcher& dispatcher, gpu::Backend& backend) {
  DispatchWork work;
  work.on_shape = [&](SweepWorker& w, const ShapeSpec& sh) {
    set_up_shape(ctx, w, sh);
    measure_floors(ctx, w, sh);  // the shape's read floor (and once the launch floor)
  };
  work.race = [&](SweepWorker& w, const ShapeSpec& sh, int m) { run_race(ctx, w, plan, sh, m); };
  dispatcher.run(work);
  // After every race, while the workers are up: the decode-step chains, on one worker.
  dispatcher.on_one_worker([&](SweepWorker& w) { run_steps(ctx, w, plan, backend); });
  dispatcher.stop();
}

// Nothing timed: the run is kept as partial.
int finish_compile_only(SweepContext& ctx, const Plan& plan,
                        const std::optional<gpu::DeviceInfo>& device) {
  ctx.store.finish_run(ctx.run, db::RunStatus::partial);
  ctx.store.mark_partial(ctx.run, "compile-only: nothing could be timed");
  if (ctx.opt.progress != ProgressMode::quiet)
    fmt::print(stderr,
               "compile-only: {} configs planned and compiled for {}; nothing was timed "
               "(no GPU{}). Run {} in {}.\n",
               plan.units.size(), ctx.arch.name, device ? " asked for" : " present", ctx.run,
               ctx.opt.db_path);
  if (ctx.opt.json) print_summary(ctx);
  return 0;
}

int sweep(const SweepOptions& opt, const Spec& spec, db::Store& store) {
  const auto t0 = SweepClock::now();
  SweepContext ctx(opt, spec, store);
  // Which arch, and is there a device to time on? The driver never touches the GPU itself: the
  // workers open it, measure the ceiling and report what they found (so a replay worker can stand
  // in for one in tests, and a faulting kernel cannot take the driver's context down).
  std::unique_ptr<Dispatcher> dispatcher;
  std::optional<gpu::DeviceInfo> device;
  if (!opt.compile_only) {
    dispatcher = std::make_unique<SingleGpuDispatcher>(ctx);
    auto opened = dispatcher->open();
    ctx.sec.open = since(t0);
    if (!opened.device) {
      fmt::print(stderr,
                 "r4tune sweep: no GPU to time on ({}); use --compile-only to plan, compile and "
                 "prune without one.\n",
                 opened.error);
      return 4;
    }
    device = opened.device;
  }
  try {
    ctx.arch = gpu::Arch::from(!opt.arch.empty() ? opt.arch
                               : device          ? device->arch.name
                                                 : spec.compile_arch);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "r4tune sweep: {}\n", e.what());
    return 2;
  }
  auto backend = gpu::make_backend(ctx.arch);  // AMD: hipRTC if it knows the arch, else clang-19

  if (const int rc = begin_or_resume_run(ctx, device, *backend); rc != 0) return rc;
  Plan plan = make_plan(spec, ctx.arch);
  print_plan(ctx, plan, device, *backend);
  if (!opt.compile_only) ctx.binary_dir = make_binary_dir();
  compile_stage(ctx, plan, *backend);
  if (opt.compile_only || !device) return finish_compile_only(ctx, plan, device);

  try {
    measure(ctx, plan, *dispatcher, *backend);
  } catch (...) {
    store.mark_partial(ctx.run, "the sweep stopped early: see the log");
    std::error_code ec;
    fs::remove_all(ctx.binary_dir, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(ctx.binary_dir, ec);
  store.finish_run(ctx.run, db::RunStatus::complete);
  ctx.sec.total = since(t0);
  print_summary(ctx);
  if (opt.progress != ProgressMode::quiet)
    fmt::print(stderr, "sweep finished in {:.1f} s; database {}\n", since(t0), opt.db_path);
  return 0;
}

}  // namespace

int run_sweep(const SweepOptions& opt) {
  const Spec spec = load_spec(opt.spec_path);
  auto store = open_store(opt.db_path);
  return sweep(opt, spec, store);
}

}  // namespace r4::tune
