// The sweep driver: the stages in order (sweep.hpp says what each does), nothing else. Under MPI
// every rank runs this same list; the steps that need the database run on rank 0 and the rest of
// the ranks get their outcome (ranks.hpp).
#include "tuner/tune/sweep.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/core.h>

#include "db/store.hpp"
#include "kernels/family.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/mpi/world.hpp"
#include "tuner/tune/compile_split.hpp"
#include "tuner/tune/compile_stage.hpp"
#include "tuner/tune/compile_tracker.hpp"
#include "tuner/tune/config_validator.hpp"
#include "tuner/tune/dispatch.hpp"
#include "tuner/tune/floor_stage.hpp"
#include "tuner/tune/host_dispatch.hpp"
#include "tuner/tune/mpi_dispatch.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/race_stage.hpp"
#include "tuner/tune/ranks.hpp"
#include "tuner/tune/run_record.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/tune/step_stage.hpp"
#include "tuner/tune/summary.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

db::Store open_store(const std::string& path) {
  auto store = db::Store::open(path);
  store.set_config_validator(kernel_config_validator());
  return store;
}

// Where the compiled binaries wait for the workers; removed at the end.
std::string make_binary_dir() {
  char tmpl[] = "/tmp/r4tune-bin-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

std::string this_host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

// One worker on --device (today's path), one per GPU of the host (--devices), or the ranks'.
std::unique_ptr<Dispatcher> make_dispatcher(SweepContext& ctx, mpi::World& world) {
  if (world.is_mpi()) return std::make_unique<MpiDispatcher>(ctx, world);
  if (!ctx.opt.devices.empty()) return std::make_unique<HostDispatcher>(ctx, world.host());
  return std::make_unique<SingleGpuDispatcher>(ctx, world.host());
}

// One per device group (GPU model): its run, arch, plan and resume state.
struct Group {
  std::unique_ptr<SweepContext> ctx;
  std::optional<gpu::DeviceInfo> device;
  std::unique_ptr<gpu::Backend> backend;
  Plan plan;
};

// Every race of the plan, on the dispatcher's workers, then the stages that follow the races.
void measure(std::vector<Group>& groups, const std::vector<GpuSlot>& gpus, Dispatcher& dispatcher) {
  std::vector<SweepContext*> contexts;
  std::map<db::Id, Group*> by_run;
  for (auto& g : groups) {
    contexts.push_back(g.ctx.get());
    by_run[g.ctx->run] = &g;
  }
  DispatchWork work;
  // Once per shape (and device group), on the worker that set it up for the shape's first race:
  // the shape's read floor (and once per run the launch floor).
  work.on_shape = [&](SweepContext& worker, SweepWorker& w, const ShapeSpec& sh) {
    measure_floors(worker, w, sh);
  };
  work.race = [&](SweepContext& worker, SweepWorker& w, const ShapeSpec& sh, int m) {
    run_race(worker, w, *worker.plan, sh, m);
  };
  // After every race of a group, while the workers are up: its decode-step chains, on one of its
  // workers in the process that holds the database (every worker's floors read back first).
  work.after_races = [&](SweepContext& worker, SweepWorker& w) {
    if (worker.run == 0) return;                              // a model with nothing to resume
    if (worker.compiling) worker.compiling->wait_finished();  // the steps compile and read units
    load_floors(worker);
    run_steps(worker, w, *worker.plan, *by_run.at(worker.run)->backend);
  };
  dispatcher.run(contexts, gpus, work);
  dispatcher.stop();
}

// Nothing timed: the run is kept as partial.
int finish_compile_only(SweepContext& ctx, const Plan& plan, bool device_asked, int ranks) {
  ctx.store.finish_run(ctx.run, db::RunStatus::partial);
  ctx.store.mark_partial(ctx.run, "compile-only: nothing could be timed");
  if (ctx.opt.progress != ProgressMode::quiet)
    fmt::print(stderr,
               "compile-only: {} configs planned and compiled for {}{}; nothing was timed "
               "(no GPU{}). Run {} in {}.\n",
               plan.units.size(), ctx.arch.name,
               ranks > 1 ? fmt::format(" over {} ranks", ranks) : "",
               device_asked ? " asked for" : " present", ctx.run, ctx.opt.db_path);
  if (ctx.opt.json) print_summary(ctx);
  return 0;
}

// Rank 0: each group's run (new or resumed), its GPUs' rows and ceilings. Returns the exit code
// and a message; groups without an unfinished run to resume are dropped when others have one.
std::pair<int, std::string> begin_runs(std::vector<Group>& groups, OpenedDevices& opened,
                                       bool timed) {
  // A run that another rank count started on GPUs this launch lacks cannot be resumed here:
  // said before anything is begun.
  std::vector<db::Id> present;
  for (auto& gr : groups)
    if (timed) present.push_back(record_device(*gr.ctx, *gr.device, *gr.backend));
  if (groups.front().ctx->opt.resume)
    if (auto bad = unresumable_runs(*groups.front().ctx, present); !bad.empty())
      return {3, "--resume: the MPI rank count changed and cannot be honoured:" + bad};
  std::size_t kept = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& gr = groups[g];
    if (const int rc = begin_or_resume_run(*gr.ctx, timed ? gr.device : std::nullopt, *gr.backend);
        rc != 0) {
      if (groups.size() == 1) return {rc, ""};  // said on stderr
      gr.ctx->run = 0;  // nothing to resume on this model: its GPUs stay idle
      continue;
    }
    ++kept;
    load_floors(*gr.ctx);  // a --resume measures only the floors the run lacks
    if (timed) record_gpus(*gr.ctx, present[g], opened.gpus, g);
  }
  if (kept == 0) return {3, "--resume: no device group of this launch has a run to continue"};
  return {0, ""};
}

// Rank 0's runs, GPU rows, ceilings and resume state, on every rank.
void share_runs(mpi::World& world, std::vector<Group>& groups, OpenedDevices& opened) {
  if (!world.is_mpi()) return;
  json state = json::object();
  if (world.root()) {
    state["groups"] = json::array();
    for (auto& g : groups) {
      const auto& c = *g.ctx;
      json raced = json::array(), checked = json::array(), hung = json::array();
      for (const auto& [n, k, m] : c.raced) raced.push_back({n, k, m});
      for (const auto& [compile_id, where] : c.hung->items()) hung.push_back({compile_id, where});
      for (const auto& [key, pass] : c.checked->items())
        checked.push_back(
            {std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), pass});
      json floors = json::array();
      for (const auto& [nk, grid] : c.floor_grids)
        floors.push_back({nk.first, nk.second, grid.first, grid.second});
      state["groups"].push_back({{"run", c.run},
                                 {"ceiling", c.ceiling_gbps},
                                 {"raced", raced},
                                 {"checked", checked},
                                 {"hung", hung},
                                 {"floors", floors},
                                 {"launch_floor", c.launch_floor_done}});
    }
    state["gpus"] = json::array();
    for (const auto& s : opened.gpus)
      state["gpus"].push_back(
          {{"id", s.gpu_id ? json(*s.gpu_id) : json()}, {"ceiling", s.ceiling_gbps}});
  }
  state = share(world, state);
  if (world.root()) return;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& c = *groups[g].ctx;
    const auto& j = state.at("groups").at(g);
    c.run = j.at("run");
    c.ceiling_gbps = j.at("ceiling");
    for (const auto& r : j.at("raced"))
      c.raced.insert(
          std::make_tuple(r[0].get<std::int64_t>(), r[1].get<std::int64_t>(), r[2].get<int>()));
    for (const auto& f : j.at("floors"))
      c.floor_grids[{f[0].get<std::int64_t>(), f[1].get<std::int64_t>()}] = {f[2].get<unsigned>(),
                                                                             f[3].get<unsigned>()};
    c.launch_floor_done = j.at("launch_floor");
    for (const auto& r : j.at("checked"))
      c.checked->set(
          {r[0].get<db::Id>(), r[1].get<std::int64_t>(), r[2].get<std::int64_t>(), r[3].get<int>()},
          r[4].get<bool>());
    // A resumed run's timed-out configs: no rank checks one of them again (verify_stage.cpp).
    for (const auto& h : j.at("hung")) c.hung->add(h[0].get<db::Id>(), h[1].get<std::string>());
  }
  for (std::size_t i = 0; i < opened.gpus.size(); ++i) {
    const auto& j = state.at("gpus").at(i);
    if (!j.at("id").is_null()) opened.gpus[i].gpu_id = j.at("id").get<db::Id>();
    opened.gpus[i].ceiling_gbps = j.at("ceiling");
  }
}

int sweep(const SweepOptions& opt, const Spec& spec, db::Store& store, mpi::World& world) {
  const auto t0 = SweepClock::now();
  SweepContext ctx(opt, spec, store);
  ctx.ranks = world.size();
  StoreSink sink(store);
  ctx.sink = &sink;
  // Which GPUs, and is there one to time on? The driver never touches a GPU itself: the workers
  // open them, measure the ceilings and report what they found (so a replay worker can stand in
  // for one in tests, and a faulting kernel cannot take the driver's context down).
  std::unique_ptr<Dispatcher> dispatcher;
  OpenedDevices opened;
  if (!opt.compile_only) {
    dispatcher = make_dispatcher(ctx, world);
    opened = dispatcher->open();
    ctx.sec.open = since(t0);
    if (opened.exit_code) {
      if (world.root())
        fmt::print(stderr, "r4tune sweep: {}{}\n", opened.error,
                   opened.exit_code == 4
                       ? "; use --compile-only to plan, compile and prune without one."
                       : "");
      return opened.exit_code;
    }
  }

  // One group per GPU model (one, without a device, for --compile-only).
  std::vector<Group> groups;
  const std::size_t n_groups = opt.compile_only ? 1 : opened.groups.size();
  for (std::size_t g = 0; g < n_groups; ++g) {
    Group gr;
    gr.ctx = std::make_unique<SweepContext>(ctx);
    gr.ctx->checked = std::make_shared<CheckedSet>();  // the group's own (checked_set.hpp)
    gr.ctx->hung = std::make_shared<HungSet>();        // likewise (hung_set.hpp)
    if (!opt.compile_only) gr.device = opened.groups[g];
    try {
      gr.ctx->arch = gpu::Arch::from(!opt.arch.empty() ? opt.arch
                                     : gr.device       ? gr.device->arch.name
                                                       : spec.compile_arch);
    } catch (const std::invalid_argument& e) {
      if (world.root()) fmt::print(stderr, "r4tune sweep: {}\n", e.what());
      return 2;
    }
    gr.backend =
        gpu::make_backend(gr.ctx->arch);  // AMD: hipRTC if it knows the arch, else clang-19
    int workers = 0;
    for (const auto& s : opened.gpus) workers += s.group == g;
    gr.ctx->workers = std::max(1, workers);
    groups.push_back(std::move(gr));
  }
  // The single-GPU path stamps its one GPU on the rows it writes itself.
  {
    auto [rc, why] = world.root() ? begin_runs(groups, opened, !opt.compile_only)
                                  : std::pair<int, std::string>{0, ""};
    if (const int agreed = agree(world, rc, why); agreed != 0) return agreed;
  }
  share_runs(world, groups, opened);
  if (!opt.compile_only && opened.gpus.size() == 1) groups[0].ctx->gpu_id = opened.gpus[0].gpu_id;
  // A model with no run to resume: nothing to race on its GPUs.
  for (auto& g : groups)
    if (g.ctx->run == 0)
      for (const auto& sh : spec.shapes)
        for (int m : measured_ms(spec)) g.ctx->raced.insert({sh.n, sh.k, m});

  const std::string binary_dir = opt.compile_only ? std::string() : make_binary_dir();
  // One device group in one process: the compile stage runs on a thread of its own, in the order
  // the races need (compile_order), and each race starts once the configs it needs are compiled
  // (docs/TUNER.md "Compile and race overlap"). Several groups or MPI ranks compile first.
  const bool overlap = !opt.compile_only && !world.is_mpi() && groups.size() == 1;
  std::optional<CompileTracker> tracker;
  std::atomic<bool> cancel{false};
  std::jthread compiler;
  SweepClock::time_point compile_end{};
  const auto stop_compiling = [&] {
    cancel = true;
    if (compiler.joinable()) compiler.join();
  };
  const auto cleanup = [&] {
    stop_compiling();  // before the binaries' folder goes: the stage writes there
    std::error_code ec;
    if (!binary_dir.empty()) fs::remove_all(binary_dir, ec);
  };
  try {
    for (auto& g : groups) {
      if (g.ctx->run == 0) continue;
      g.plan = make_plan(spec, g.ctx->arch);
      g.ctx->plan = &g.plan;
      g.ctx->binary_dir = binary_dir;
      set_keys(g.plan, g.backend->compiler_version(), opt.threads);
      if (world.root()) print_plan(*g.ctx, g.plan, g.device, *g.backend);
      if (world.is_mpi()) {
        compile_split(*g.ctx, g.plan, *g.backend, world);
      } else if (overlap) {
        tracker.emplace(g.plan.units.size());
        g.ctx->compiling = &*tracker;
        compiler = std::jthread([&, &gr = g] {
          try {
            compile_stage(*gr.ctx, gr.plan, *gr.backend,
                          {&*tracker, &sink.mutex(), &cancel, /*plain_progress=*/true});
            compile_end = SweepClock::now();
            tracker->finish();
          } catch (...) {
            compile_end = SweepClock::now();
            tracker->finish(std::current_exception());
          }
        });
      } else {
        compile_stage(*g.ctx, g.plan, *g.backend);
      }
    }
  } catch (...) {
    cleanup();
    throw;
  }
  if (opt.compile_only) {
    if (!world.root()) return agree(world, 0, "");
    const int rc = finish_compile_only(*groups[0].ctx, groups[0].plan, false, world.size());
    return agree(world, rc, "");
  }

  const double before_races = since(t0);
  try {
    measure(groups, opened.gpus, *dispatcher);
  } catch (...) {
    stop_compiling();  // its rows are written before the run is marked
    if (world.root())
      for (auto& g : groups)
        if (g.ctx->run) store.mark_partial(g.ctx->run, "the sweep stopped early: see the log");
    cleanup();
    throw;
  }
  const double racing = since(t0) - before_races;
  if (tracker) {
    compiler.join();  // done: after_races waited for it
    if (const auto first = tracker->first_race(); first.started) {
      auto& sec = groups[0].ctx->sec;
      sec.compile_beside =
          std::max(0.0, std::chrono::duration<double>(compile_end - first.at).count());
      sec.compiled_at_first_race = first.units_done;
    }
  }
  cleanup();
  int rc = 0;
  if (world.root()) {
    const auto failed = dispatcher->failed_races();
    for (auto& g : groups) {
      if (g.ctx->run == 0) continue;
      if (failed.empty()) {
        store.finish_run(g.ctx->run, db::RunStatus::complete);
      } else {
        std::string note = "races given up (left for --resume):";
        for (const auto& f : failed) note += "\n" + f;
        store.mark_partial(g.ctx->run, note);
        rc = 1;
      }
      g.ctx->sec.total = since(t0);
      g.ctx->sec.before_races = before_races;
      g.ctx->sec.racing = racing;
      print_summary(*g.ctx);
    }
    if (!failed.empty()) {
      fmt::print(stderr, "r4tune sweep: the run is left partial; given up:\n");
      for (const auto& f : failed) fmt::print(stderr, "  {}\n", f);
      fmt::print(stderr, "continue it with --resume (with the same or another rank count)\n");
    }
    if (opt.progress != ProgressMode::quiet)
      fmt::print(stderr, "sweep finished in {:.1f} s; database {}\n", since(t0), opt.db_path);
  }
  // A rank reported lost cannot join a collective: end the job here, everything is stored.
  if (auto* mpi_d = dynamic_cast<MpiDispatcher*>(dispatcher.get()); mpi_d && mpi_d->lost_ranks())
    world.abort(1);
  return agree(world, rc, "");
}

}  // namespace

int run_sweep(const SweepOptions& options) {
  SweepOptions opt = options;
  opt.host_name = this_host();
  std::unique_ptr<mpi::World> world;
  try {
    world = mpi::World::from_environment();
  } catch (const mpi::Error& e) {
    fmt::print(stderr, "r4tune sweep: {}\n", e.what());
    return 2;
  }
  if (world->is_mpi() && world->root() && opt.progress != ProgressMode::quiet)
    fmt::print(stderr, "mpi: {}\n", world->describe());
  // The spec on every rank; the database on rank 0 only (the other ranks keep theirs in memory
  // and never open rank 0's file). Each is agreed before anything else runs.
  std::optional<Spec> spec;
  std::string why;
  try {
    spec = load_spec(opt.spec_path);
  } catch (const SpecError& e) {
    why = e.what();
  }
  if (const int rc = agree(*world, why.empty() ? 0 : 3, why); rc != 0) return rc;
  std::optional<db::Store> store;
  try {
    store = open_store(world->root() ? opt.db_path : ":memory:");
  } catch (const db::Error& e) {
    why = fmt::format("database {}: {}", opt.db_path, e.what());
  }
  if (const int rc = agree(*world, why.empty() ? 0 : 3, why); rc != 0) return rc;
  if (!world->is_mpi()) return sweep(opt, *spec, *store, *world);
  try {
    return sweep(opt, *spec, *store, *world);
  } catch (const std::exception& e) {
    // Every rank ends the job together: the others are waiting in a collective or still racing.
    fmt::print(stderr, "r4tune sweep: rank {} ({}): {}\n", world->rank(), world->host(), e.what());
    world->abort(1);
  }
  return 1;
}

}  // namespace r4::tune
