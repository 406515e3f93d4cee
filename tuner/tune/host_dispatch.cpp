#include "tuner/tune/host_dispatch.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include <fmt/core.h>

#include "tuner/gpu/device_json.hpp"
#include "tuner/tune/device_select.hpp"
#include "tuner/worker/process.hpp"

namespace r4::tune {

using nlohmann::json;

std::uint64_t race_seed(const ShapeSpec& sh, int m) {
  // splitmix64 over the race's key.
  std::uint64_t z = 0x5eedULL ^ (static_cast<std::uint64_t>(sh.n) * 0x9E3779B97F4A7C15ULL) ^
                    (static_cast<std::uint64_t>(sh.k) << 20) ^ static_cast<std::uint64_t>(m);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

void add_tally(SweepContext& to, const SweepTally& t, const PhaseSeconds& s) {
  to.tally.verified += t.verified;
  to.tally.verify_failed += t.verify_failed;
  to.tally.timed += t.timed;
  to.tally.raced_out += t.raced_out;
  to.tally.failed += t.failed;
  auto& d = to.sec;
  d.shapes += s.shapes;
  d.verify += s.verify;
  d.race_setup += s.race_setup;
  d.sampling += s.sampling;
  d.store += s.store;
  d.floors += s.floors;
  d.steps += s.steps;
  d.setup_workspace += s.setup_workspace;
  d.setup_baselines += s.setup_baselines;
  d.setup_candidates += s.setup_candidates;
  d.setup_warmup += s.setup_warmup;
}

OpenedDevices group_gpus(std::vector<GpuSlot> gpus, bool allow_mixed) {
  OpenedDevices out;
  std::vector<std::string> keys;
  for (auto& slot : gpus) {
    const std::string key = model_key(slot.info);
    auto it = std::find(keys.begin(), keys.end(), key);
    slot.group = static_cast<std::size_t>(it - keys.begin());
    if (it == keys.end()) {
      keys.push_back(key);
      out.groups.push_back(slot.info);
    }
  }
  if (out.groups.size() > 1 && !allow_mixed) {
    std::string list;
    for (const auto& slot : gpus) list += "\n  " + describe_gpu(slot.host, slot.info);
    out.exit_code = 2;
    out.error = fmt::format(
        "the GPUs of this sweep are not all one model ({} models):{}\nA winner is chosen for "
        "one model: choose GPUs of one model with --devices, or add --allow-mixed to time each "
        "model as its own run with its own winners",
        out.groups.size(), list);
    return out;
  }
  out.gpus = std::move(gpus);
  if (!out.groups.empty()) out.device = out.groups.front();
  return out;
}

// ---- HostLanes ----

struct HostLanes::Lane {
  int ordinal = 0;
  std::unique_ptr<SweepWorker> worker;
  std::unique_ptr<SweepContext> ctx;
  GpuSlot slot;
  WorkerStats stats;
  std::optional<std::size_t> shape;  // the shape its pool holds
  int starts_at_run = 0;
};

HostLanes::HostLanes(const SweepOptions& opt, int rank, std::string host)
    : opt_(opt), rank_(rank), host_(std::move(host)) {}

HostLanes::~HostLanes() {
  stop();
}

std::vector<gpu::DeviceInfo> HostLanes::probe(std::string& error) {
  worker::WorkerProcess p(opt_.worker_argv.empty() ? worker::self_worker_argv() : opt_.worker_argv);
  const auto r = p.call({{"op", "devices"}}, std::chrono::milliseconds(120000));
  p.stop();
  std::vector<gpu::DeviceInfo> out;
  if (r.status != worker::JobStatus::ok) {
    error = r.detail;
    return out;
  }
  if (!r.reply.value("ok", true) || !r.reply.contains("devices")) {
    error = r.reply.value("error", std::string("the worker did not list the devices"));
    return out;
  }
  for (const auto& d : r.reply.at("devices")) out.push_back(gpu::device_from_json(d));
  if (out.empty()) error = r.reply.value("status", std::string("no GPU found"));
  return out;
}

std::vector<HostLanes::Opened> HostLanes::open(const std::vector<int>& ordinals) {
  std::vector<Opened> out(ordinals.size());
  lanes_.clear();
  for (int o : ordinals) {
    auto lane = std::make_unique<Lane>();
    lane->ordinal = o;
    lane->worker = std::make_unique<SweepWorker>(opt_.worker_argv, o);
    lanes_.push_back(std::move(lane));
  }
  // Together: each worker measures its own GPU's ceiling (seconds each on an H200).
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < lanes_.size(); ++i)
      threads.emplace_back([&, i] {
        auto& o = out[i];
        o.ordinal = lanes_[i]->ordinal;
        const auto r = lanes_[i]->worker->open_measuring_ceiling();
        if (r.status != worker::JobStatus::ok)
          o.error = r.detail;
        else if (!r.reply.value("ok", false))
          o.error = r.reply.value("error", std::string("?"));
        else {
          o.ok = true;
          o.reply = r.reply;
        }
      });
  }
  return out;
}

SweepContext& HostLanes::context(std::size_t i) {
  return *lanes_.at(i)->ctx;
}

SweepWorker& HostLanes::worker(std::size_t i) {
  return *lanes_.at(i)->worker;
}

std::vector<WorkerStats> HostLanes::stats() const {
  std::vector<WorkerStats> out;
  for (const auto& l : lanes_) out.push_back(l->stats);
  return out;
}

std::vector<std::string> HostLanes::failed_races() const {
  std::lock_guard lock(mu_);
  return failed_;
}

void HostLanes::add_tallies_to(const std::vector<SweepContext*>& groups) const {
  for (const auto& l : lanes_) {
    if (!l->ctx) continue;
    auto& g = *groups.at(l->slot.group);
    add_tally(g, l->ctx->tally, l->ctx->sec);
    g.raced.insert(l->ctx->raced.begin(), l->ctx->raced.end());
  }
}

void HostLanes::stop() {
  for (auto& l : lanes_) l->worker->stop();
}

void HostLanes::run(std::vector<RaceJob> jobs, const std::vector<GpuSlot>& slots,
                    const std::vector<SweepContext*>& groups, const DispatchWork& work,
                    RowSink& sink, const std::function<void(const DispatchEvent&)>& on_event,
                    std::atomic<bool>& stop) {
  RaceQueue queue(std::move(jobs));
  run(queue, true, slots, groups, work, sink, on_event, stop);
}

void HostLanes::run(RaceSource& queue, bool report_left, const std::vector<GpuSlot>& slots,
                    const std::vector<SweepContext*>& groups, const DispatchWork& work,
                    RowSink& sink, const std::function<void(const DispatchEvent&)>& on_event,
                    std::atomic<bool>& stop) {
  const auto emit = [&](const DispatchEvent& e) {
    std::lock_guard lock(mu_);
    if (on_event) on_event(e);
  };
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    auto& l = *lanes_[i];
    l.slot = slots.at(i);
    l.ctx = std::make_unique<SweepContext>(*groups.at(l.slot.group));
    l.ctx->sink = &sink;
    l.ctx->gpu_id = l.slot.gpu_id;
    l.ctx->ceiling_gbps = l.slot.ceiling_gbps;
    l.ctx->tally = {};
    l.ctx->sec = {};
    // The run's launch floor goes with the group's first race only (drive).
    l.ctx->launch_floor_done = true;
    l.stats = {rank_, host_, l.ordinal, l.slot.group, l.slot.gpu_id, 0, 0, 0, 0, false};
    l.starts_at_run = l.worker->process().starts();
  }
  const auto t0 = SweepClock::now();
  const auto drive_live_lanes = [&] {
    std::vector<std::jthread> threads;
    for (auto& l : lanes_)
      if (!l->stats.retired)
        threads.emplace_back(
            [&, lane = l.get()] { drive(*lane, queue, groups, work, emit, stop, t0); });
  };
  drive_live_lanes();
  // A lane ends when it finds the queue empty, but a lane still racing may then queue its race
  // again (it threw) and retire (its second failure in a row): the race would be left with a live
  // lane idle. The live lanes go round again while that leaves fewer races waiting (session 25: a
  // fresh-clone run of the crash test on two cores stranded one so).
  for (std::size_t left = queue.waiting(); !stop && left > 0;) {
    drive_live_lanes();
    const std::size_t now = queue.waiting();
    if (now >= left) break;
    left = now;
  }
  for (auto& l : lanes_) l->stats.restarts = l->worker->process().starts() - l->starts_at_run;
  if (error_) std::rethrow_exception(error_);
  if (const auto left = queue.waiting(); report_left && left > 0 && !stop) {
    std::lock_guard lock(mu_);
    failed_.push_back(fmt::format(
        "{} race{} not run on rank {} ({}): every worker that could take them failed twice in "
        "a row",
        left, left == 1 ? " was" : "s were", rank_, host_));
  }
}

void HostLanes::drive(Lane& lane, RaceSource& queue, const std::vector<SweepContext*>& groups,
                      const DispatchWork& work,
                      const std::function<void(const DispatchEvent&)>& emit,
                      std::atomic<bool>& stop, SweepClock::time_point t0) {
  auto& ctx = *lane.ctx;
  auto& w = *lane.worker;
  int in_a_row = 0;
  while (!stop) {
    auto job = queue.take(lane.slot.group, lane.shape);
    if (!job) break;
    const auto& sh = ctx.spec.shapes.at(job->shape);
    const auto tb = SweepClock::now();
    emit({"start", since(t0), rank_, host_, lane.ordinal, job->group, sh.n, sh.k, job->m, 0, {}});
    std::string why;
    try {
      if (lane.shape != job->shape) {
        lane.shape.reset();
        set_up_shape(ctx, w, sh);
        lane.shape = job->shape;
      }
      if (job->first_of_group) ctx.launch_floor_done = groups.at(job->group)->launch_floor_done;
      if (job->first_of_shape && work.on_shape) work.on_shape(ctx, w, sh);
      ctx.rng.seed(race_seed(sh, job->m));
      work.race(ctx, w, sh, job->m);
    } catch (const SweepStop&) {
      {
        std::lock_guard lock(mu_);
        if (!error_) error_ = std::current_exception();
      }
      stop = true;
      queue.stop();
      lane.stats.busy_seconds += since(tb);
      break;
    } catch (const std::exception& e) {
      why = e.what();
      lane.shape.reset();  // set it up again before the next race
    }
    const double busy = since(tb);
    lane.stats.busy_seconds += busy;
    DispatchEvent ev{"race", since(t0), rank_,  host_, lane.ordinal, job->group,
                     sh.n,   sh.k,      job->m, busy,  why};
    if (why.empty()) {
      ++lane.stats.races;
      in_a_row = 0;
      emit(ev);
      continue;
    }
    ++in_a_row;
    if (queue.retry(*job)) {
      ev.event = "retry";
      emit(ev);
    } else {
      ++lane.stats.failed;
      ev.event = "failed";
      {
        std::lock_guard lock(mu_);
        failed_.push_back(fmt::format("N={} K={} M={} on rank {} host {} GPU {}: {}", sh.n, sh.k,
                                      job->m, rank_, host_, lane.ordinal, why.substr(0, 300)));
      }
      emit(ev);
    }
    if (in_a_row >= 2) {
      lane.stats.retired = true;
      break;
    }
  }
}

void record_worker_time(const std::vector<SweepContext*>& groups,
                        const std::vector<WorkerStats>& stats, const std::vector<double>& idle,
                        std::mutex* store_mu) {
  // The sweep's compile thread may still be linking compiles into the same connection.
  std::unique_lock<std::mutex> lock;
  if (store_mu != nullptr) lock = std::unique_lock<std::mutex>(*store_mu);
  for (std::size_t i = 0; i < stats.size(); ++i) {
    if (!stats[i].gpu_id) continue;
    auto& g = *groups.at(stats[i].group);
    if (g.run == 0) continue;  // a model with nothing to resume
    db::RunGpuRow rg;
    rg.run_id = g.run;
    rg.gpu_id = *stats[i].gpu_id;
    rg.rank = stats[i].rank;
    rg.races = stats[i].races;
    rg.busy_seconds = stats[i].busy_seconds;
    rg.idle_seconds = idle.at(i);
    g.store.record_run_gpu(rg);
  }
}

// ---- HostDispatcher ----

HostDispatcher::HostDispatcher(SweepContext& ctx, std::string host)
    : ctx_(ctx), lanes_(ctx.opt, 0, std::move(host)) {}

OpenedDevices HostDispatcher::open() {
  OpenedDevices out;
  std::string why;
  const auto present = lanes_.probe(why);
  const auto sel =
      select_devices(parse_devices(ctx_.opt.devices), present, ctx_.opt.host_name, 0, 1);
  if (!sel.error.empty()) {
    out.exit_code = 4;
    out.error =
        present.empty() && !why.empty() ? fmt::format("{} ({})", sel.error, why) : sel.error;
    return out;
  }
  // Mixed models are refused before any GPU is opened.
  {
    std::vector<GpuSlot> probe_slots;
    for (int o : sel.ordinals)
      for (const auto& d : present)
        if (d.index == o) probe_slots.push_back({0, ctx_.opt.host_name, d, {}, 0, false, {}, 0});
    auto check = group_gpus(probe_slots, ctx_.opt.allow_mixed);
    if (check.exit_code) return check;
  }
  std::vector<GpuSlot> slots;
  std::string failed;
  for (const auto& o : lanes_.open(sel.ordinals)) {
    if (!o.ok) {
      failed += fmt::format("\n  host {} GPU {}: {}", ctx_.opt.host_name, o.ordinal, o.error);
      continue;
    }
    GpuSlot slot;
    slot.host = ctx_.opt.host_name;
    slot.info = gpu::device_from_json(o.reply.at("device"));
    slot.info.index = o.ordinal;
    slot.open_reply = o.reply;
    slots.push_back(std::move(slot));
  }
  if (!failed.empty()) {
    out.exit_code = 4;
    out.error = "a GPU could not be opened:" + failed;
    return out;
  }
  return group_gpus(std::move(slots), ctx_.opt.allow_mixed);
}

void HostDispatcher::run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
                         const DispatchWork& work) {
  std::vector<GroupPlan> plans;
  for (auto* g : groups) plans.push_back({g->plan, g->arch, &g->raced});
  auto jobs = make_jobs(ctx_.spec, plans);
  DispatchLog log(ctx_.opt.dispatch_log, ctx_.opt.progress);
  Progress prog(ctx_.opt.progress, "measure", jobs.size());
  std::map<std::size_t, std::size_t> done_per_group;
  const auto on_event = [&](const DispatchEvent& e) {
    log.event(e);
    if (e.event == "start") return;
    if (e.event == "race")
      prog.advance(
          1, fmt::format("N={} K={} M={} on GPU {} in {:.1f} s", e.n, e.k, e.m, e.gpu, e.seconds));
    else
      prog.note(fmt::format("race N={} K={} M={} on GPU {} {}: {}", e.n, e.k, e.m, e.gpu,
                            e.event == "retry" ? "failed, queued again" : "failed twice, given up",
                            e.detail.substr(0, 300)));
  };
  std::atomic<bool> stop{false};
  const auto t0 = SweepClock::now();
  std::exception_ptr error;
  try {
    lanes_.run(std::move(jobs), gpus, groups, work, *ctx_.sink, on_event, stop);
  } catch (...) {
    error = std::current_exception();
  }
  const double wall = since(t0);
  prog.finish();
  const auto stats = lanes_.stats();
  const auto idle = log.finish(stats, wall);
  lanes_.add_tallies_to(groups);
  {
    auto* store_sink = dynamic_cast<StoreSink*>(ctx_.sink);
    record_worker_time(groups, stats, idle, store_sink ? &store_sink->mutex() : nullptr);
  }
  if (error) std::rethrow_exception(error);
  for (std::size_t g = 0; g < groups.size() && work.after_races; ++g)
    for (std::size_t i = 0; i < lanes_.size(); ++i)
      if (lanes_.context(i).run == groups[g]->run) {
        work.after_races(lanes_.context(i), lanes_.worker(i));
        break;
      }
}

}  // namespace r4::tune
