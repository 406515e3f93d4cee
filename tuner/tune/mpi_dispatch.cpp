#include "tuner/tune/mpi_dispatch.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "tuner/gpu/device_json.hpp"
#include "tuner/tune/device_select.hpp"
#include "tuner/tune/ranks.hpp"
#include "tuner/tune/remote_queue.hpp"

namespace r4::tune {

using nlohmann::json;

namespace {

constexpr int kToRoot = 41;  // a rank's rows, events, heartbeats and its end, to rank 0
constexpr int kToRank = 42;  // rank 0's "stop after the race in flight"
constexpr int kJob = 43;     // rank 0's answer to a rank's "take": its next race, or none

// This rank's rows and events, waiting for the thread that talks MPI.
class Outbox final : public RowSink {
 public:
  void write(RowBatch batch) override { push({{"type", "rows"}, {"batch", to_json(batch)}}); }
  void push(json item) {
    std::lock_guard lock(mu_);
    items_.push_back(std::move(item));
  }
  [[nodiscard]] json take() {
    std::lock_guard lock(mu_);
    json out = json::array();
    for (auto& i : items_) out.push_back(std::move(i));
    items_.clear();
    return out;
  }

 private:
  std::mutex mu_;
  std::vector<json> items_;
};

// SIGTERM / SIGINT on rank 0 while the races run: how a launcher ends the job when another rank
// died (mpirun's default) or the job is cancelled. Process-wide by nature; set only by the
// handler below, read by rank 0's loop.
std::atomic<int> g_signal{0};
extern "C" void note_signal(int s) {
  g_signal = s;
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

std::string gpus_of(const std::vector<GpuSlot>& gpus, int rank) {
  std::string s;
  for (const auto& g : gpus)
    if (g.rank == rank)
      s += fmt::format("{}GPU {}: {}", s.empty() ? "" : ", ", g.info.index, g.info.name);
  return s;
}

}  // namespace

MpiDispatcher::MpiDispatcher(SweepContext& ctx, mpi::World& world)
    : ctx_(ctx), world_(world), lanes_(ctx.opt, world.rank(), world.host()) {}

MpiDispatcher::~MpiDispatcher() = default;

OpenedDevices MpiDispatcher::open() {
  OpenedDevices out;
  const int me = world_.rank();
  // Who is where: the ranks of one host share its GPUs.
  hosts_.clear();
  pids_.clear();
  for (const auto& b : world_.allgather(pack({{"host", world_.host()}, {"pid", ::getpid()}}))) {
    const auto j = unpack(b);
    hosts_.push_back(j.at("host"));
    pids_.push_back(j.at("pid"));
  }
  int local_rank = 0, local_size = 0;
  for (int r = 0; r < world_.size(); ++r)
    if (hosts_[static_cast<std::size_t>(r)] == world_.host()) {
      if (r < me) ++local_rank;
      ++local_size;
    }
  // Each rank's choice among its host's GPUs, checked before any is opened.
  std::string why;
  const auto present = lanes_.probe(why);
  const DeviceChoice choice =
      ctx_.opt.devices.empty() ? DeviceChoice{true, {}} : parse_devices(ctx_.opt.devices);
  const auto sel = select_devices(choice, present, world_.host(), local_rank, local_size);
  json mine = {{"error", sel.error.empty() || why.empty() || !present.empty()
                             ? sel.error
                             : fmt::format("{} ({})", sel.error, why)},
               {"shared", sel.shared},
               {"devices", json::array()}};
  for (int o : sel.ordinals)
    for (const auto& d : present)
      if (d.index == o) mine["devices"].push_back(gpu::to_json(d));
  std::vector<json> all;
  for (const auto& b : world_.allgather(pack(mine))) all.push_back(unpack(b));
  std::string errors;
  std::vector<GpuSlot> chosen;
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (const std::string e = all[r].at("error"); !e.empty())
      errors += fmt::format("\n  rank {} ({}): {}", r, hosts_[r], e);
    for (const auto& d : all[r].at("devices"))
      chosen.push_back({static_cast<int>(r),
                        hosts_[r],
                        gpu::device_from_json(d),
                        {},
                        0,
                        all[r].at("shared").get<bool>(),
                        {},
                        0});
  }
  if (!errors.empty()) {
    out.exit_code = 4;
    out.error =
        "no GPU to time on for every rank (every rank needs one unless --compile-only):" + errors;
    return out;
  }
  if (auto check = group_gpus(chosen, ctx_.opt.allow_mixed); check.exit_code) return check;
  // Open them, every rank its own, together.
  json opened = json::array();
  for (const auto& o : lanes_.open(sel.ordinals))
    opened.push_back(
        {{"ordinal", o.ordinal}, {"ok", o.ok}, {"reply", o.reply}, {"error", o.error}});
  std::vector<GpuSlot> slots;
  const auto gathered = world_.allgather(pack(opened));
  for (std::size_t r = 0; r < gathered.size(); ++r)
    for (const auto& o : unpack(gathered[r])) {
      if (!o.at("ok").get<bool>()) {
        errors += fmt::format("\n  rank {} host {} GPU {}: {}", r, hosts_[r],
                              o.at("ordinal").get<int>(), o.at("error").get<std::string>());
        continue;
      }
      GpuSlot slot;
      slot.rank = static_cast<int>(r);
      slot.host = hosts_[r];
      slot.info = gpu::device_from_json(o.at("reply").at("device"));
      slot.info.index = o.at("ordinal");
      slot.open_reply = o.at("reply");
      slot.shared = all[r].at("shared");
      slots.push_back(std::move(slot));
    }
  if (!errors.empty()) {
    out.exit_code = 4;
    out.error = "a GPU could not be opened:" + errors;
    return out;
  }
  return group_gpus(std::move(slots), ctx_.opt.allow_mixed);
}

void MpiDispatcher::run(const std::vector<SweepContext*>& groups, const std::vector<GpuSlot>& gpus,
                        const DispatchWork& work) {
  if (!world_.root()) {
    run_other(groups, gpus, work);  // its races come from rank 0's queue
    return;
  }
  std::vector<GroupPlan> plans;
  for (auto* g : groups) plans.push_back({g->plan, g->arch, &g->raced});
  run_root(groups, gpus, work, make_jobs(ctx_.spec, plans));
}

void MpiDispatcher::run_other(const std::vector<SweepContext*>& groups,
                              const std::vector<GpuSlot>& gpus, const DispatchWork& work) {
  std::vector<GpuSlot> my_slots;
  for (const auto& s : gpus)
    if (s.rank == world_.rank()) my_slots.push_back(s);
  Outbox box;
  std::atomic<bool> stop{false}, finished{false};
  std::exception_ptr error;
  const auto on_event = [&](const DispatchEvent& e) {
    box.push({{"type", "event"}, {"event", to_json(e)}});
  };
  RemoteQueue queue([&](json request) { box.push(std::move(request)); });
  std::thread racing([&] {
    try {
      lanes_.run(queue, true, my_slots, groups, work, box, on_event, stop);
    } catch (...) {
      error = std::current_exception();
    }
    finished = true;
  });
  auto last_sent = SweepClock::now();
  for (;;) {
    const bool done = finished;  // read before taking: nothing pushed before it is left behind
    const json items = box.take();
    // An empty message is the heartbeat: rank 0 reports a rank silent for --rank-timeout-s.
    if (!items.empty() || since(last_sent) > 2.0) {
      world_.send(0, kToRoot, pack({{"type", "many"}, {"items", items}}));
      last_sent = SweepClock::now();
    }
    while (world_.try_recv(kToRank)) {
      stop = true;
      queue.stop();  // a worker waiting for its next race takes none
    }
    while (auto m = world_.try_recv(kJob)) queue.deliver(unpack(m->data));
    if (done && items.empty()) break;
    if (items.empty()) sleep_ms(5);
  }
  racing.join();
  json end = {{"type", "done"},
              {"stats", json::array()},
              {"groups", json::array()},
              {"failed", lanes_.failed_races()}};
  for (const auto& s : lanes_.stats()) end["stats"].push_back(to_json(s));
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    const auto& c = lanes_.context(i);
    const auto& t = c.tally;
    const auto& s = c.sec;
    end["groups"].push_back(
        {{"group", my_slots.at(i).group},
         {"tally", {t.verified, t.verify_failed, t.timed, t.raced_out, t.failed}},
         {"sec",
          {s.shapes, s.verify, s.race_setup, s.sampling, s.store, s.setup_workspace,
           s.setup_baselines, s.setup_candidates, s.setup_warmup, s.floors}}});
  }
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      end["error"] = e.what();
    }
  }
  world_.send(0, kToRoot, pack(end));
}

// Rank 0: its own workers race on a thread while this one writes every rank's rows.
void MpiDispatcher::run_root(const std::vector<SweepContext*>& groups,
                             const std::vector<GpuSlot>& gpus, const DispatchWork& work,
                             std::vector<RaceJob> jobs) {
  const int ranks = world_.size();
  const std::size_t total = jobs.size();
  RaceQueue queue(std::move(jobs));  // every rank's workers take from it
  std::vector<GpuSlot> my_slots;
  for (const auto& s : gpus)
    if (s.rank == 0) my_slots.push_back(s);
  DispatchLog log(ctx_.opt.dispatch_log, ctx_.opt.progress);
  Progress prog(ctx_.opt.progress, "measure", total);
  std::mutex mu;  // the log, the progress line and what is in flight
  std::map<std::pair<int, int>, DispatchEvent> in_flight;  // (rank, GPU) -> its race
  // Remote workers' stats as their events tell (kept for a rank that never says it is done).
  std::map<std::pair<int, int>, WorkerStats> remote_stats;
  const auto handle_event = [&](const DispatchEvent& e) {
    std::lock_guard lock(mu);
    log.event(e);
    const std::pair<int, int> key{e.rank, e.gpu};
    if (e.rank != 0) {
      auto& s = remote_stats[key];
      s.rank = e.rank;
      s.host = e.host;
      s.gpu = e.gpu;
      s.group = e.group;
      s.busy_seconds += e.seconds;
      s.races += e.event == "race";
      s.failed += e.event == "failed";
    }
    if (e.event == "start") {
      in_flight[key] = e;
      return;
    }
    in_flight.erase(key);
    if (e.event == "race")
      prog.advance(1, fmt::format("N={} K={} M={} on rank {} GPU {} in {:.1f} s", e.n, e.k, e.m,
                                  e.rank, e.gpu, e.seconds));
    else
      prog.note(fmt::format("race N={} K={} M={} on rank {} ({}) GPU {} {}: {}", e.n, e.k, e.m,
                            e.rank, e.host, e.gpu,
                            e.event == "retry" ? "failed, queued again" : "failed twice, given up",
                            e.detail.substr(0, 300)));
  };

  std::atomic<bool> stop{false}, finished{false};
  std::exception_ptr error;
  const auto t0 = SweepClock::now();
  std::thread racing([&] {
    try {
      lanes_.run(queue, false, my_slots, groups, work, *ctx_.sink, handle_event, stop);
    } catch (...) {
      error = std::current_exception();
    }
    finished = true;
  });

  struct RankState {
    bool done = false, lost = false;
    SweepClock::time_point heard = SweepClock::now();
    json end;
  };
  std::vector<RankState> rs(static_cast<std::size_t>(ranks));
  rs[0].done = true;
  std::string remote_error;
  bool stop_sent = false;
  auto* store_sink = dynamic_cast<StoreSink*>(ctx_.sink);
  const auto old_term = std::signal(SIGTERM, note_signal);
  const auto old_int = std::signal(SIGINT, note_signal);

  const auto in_flight_of = [&](int r) {
    std::string s;
    std::lock_guard lock(mu);
    for (const auto& [key, e] : in_flight)
      if (key.first == r)
        s += fmt::format("{}GPU {} at N={} K={} M={}", s.empty() ? "" : ", ", e.gpu, e.n, e.k, e.m);
    return s.empty() ? std::string("none") : s;
  };
  const auto lose = [&](int r, const std::string& why) {
    auto& st = rs[static_cast<std::size_t>(r)];
    st.lost = true;
    lost_ranks_ = true;
    const std::string line = fmt::format(
        "rank {} (host {}, {}) failed: {}; races in flight: {}; its unfinished races are left "
        "for --resume",
        r, hosts_[static_cast<std::size_t>(r)], gpus_of(gpus, r), why, in_flight_of(r));
    failed_.push_back(line);
    fmt::print(stderr, "r4tune sweep: {}\n", line);
  };

  const auto gone = [&](int r) {
    return hosts_[static_cast<std::size_t>(r)] == world_.host() &&
           ::kill(pids_[static_cast<std::size_t>(r)], 0) != 0 && errno == ESRCH;
  };
  // A message whose sender dies before all of it arrives is given up, not waited for.
  const auto give_up = [&](int r) {
    return g_signal.load() != 0 || gone(r) ||
           since(rs[static_cast<std::size_t>(r)].heard) > ctx_.opt.rank_timeout_s;
  };
  for (;;) {
    const bool own_done = finished;
    bool got = false;
    while (auto m = world_.try_recv(kToRoot, give_up)) {
      got = true;
      const int r = m->source;
      auto& st = rs[static_cast<std::size_t>(r)];
      if (m->abandoned) {
        if (!st.lost && !st.done && !g_signal)
          lose(r, "it stopped in the middle of sending its rows");
        break;
      }
      st.heard = SweepClock::now();
      if (st.lost) continue;  // a rank declared failed stays failed
      const json j = unpack(m->data);
      if (j.at("type") == "done") {
        st.done = true;
        st.end = j;
        if (j.contains("error") && remote_error.empty())
          remote_error = fmt::format("rank {} ({}): {}", r, hosts_[static_cast<std::size_t>(r)],
                                     j["error"].get<std::string>());
        continue;
      }
      for (const auto& item : j.at("items")) {
        if (item.at("type") == "rows")
          ctx_.sink->write(batch_from_json(item.at("batch")));
        else if (item.at("type") == "event")
          handle_event(event_from_json(item.at("event")));
        else if (item.at("type") == "take")
          world_.send(r, kJob, pack(answer_take(queue, item)));
      }
    }
    if (const int sig = g_signal.load()) {
      // The launcher is ending the job: say what is known, leave the runs partial, go.
      std::string lines;
      for (int r = 0; r < ranks; ++r)
        if (!rs[static_cast<std::size_t>(r)].done || r == 0)
          lines +=
              fmt::format("\n  rank {} (host {}, {}): in flight {}", r,
                          hosts_[static_cast<std::size_t>(r)], gpus_of(gpus, r), in_flight_of(r));
      const std::string note = fmt::format(
          "rank 0 got signal {} ({}) while racing: under mpirun this is how the job ends when a "
          "rank fails (mpirun names it) or is cancelled; races in flight:{}",
          sig, strsignal(sig), lines);
      fmt::print(stderr,
                 "r4tune sweep: {}\nThe runs are left partial: continue them with --resume "
                 "(with the same or another rank count).\n",
                 note);
      if (store_sink) {
        std::lock_guard lock(store_sink->mutex());
        for (auto* g : groups) ctx_.store.mark_partial(g->run, note);
      }
      std::_Exit(128 + sig);
    }
    // A silent rank, or one whose process is gone on this host.
    for (int r = 1; r < ranks; ++r) {
      auto& st = rs[static_cast<std::size_t>(r)];
      if (st.done || st.lost) continue;
      if (gone(r))
        lose(r, "its process is gone");
      else if (since(st.heard) > ctx_.opt.rank_timeout_s)
        lose(r,
             fmt::format("no word from it for {} s (--rank-timeout-s)", ctx_.opt.rank_timeout_s));
    }
    if ((error || !remote_error.empty()) && !stop_sent) {
      stop = true;
      queue.stop();
      for (int r = 1; r < ranks; ++r)
        if (!rs[static_cast<std::size_t>(r)].done && !rs[static_cast<std::size_t>(r)].lost)
          world_.send(r, kToRank, "stop");
      stop_sent = true;
    }
    bool all = own_done;
    for (const auto& st : rs) all = all && (st.done || st.lost);
    if (all) break;
    if (!got) sleep_ms(5);
  }
  racing.join();
  std::signal(SIGTERM, old_term);
  std::signal(SIGINT, old_int);
  const double wall = since(t0);
  prog.finish();

  // Every worker's time, in rank order: rank 0's own, then each rank's as it reported it (or as
  // its events tell, for a rank that failed).
  std::vector<WorkerStats> stats = lanes_.stats();
  for (int r = 1; r < ranks; ++r) {
    const auto& st = rs[static_cast<std::size_t>(r)];
    if (st.done && st.end.contains("stats")) {
      for (const auto& s : st.end["stats"]) stats.push_back(stats_from_json(s));
    } else {
      for (const auto& slot : gpus)
        if (slot.rank == r) {
          auto s = remote_stats[{r, slot.info.index}];
          s.rank = r;
          s.host = slot.host;
          s.gpu = slot.info.index;
          s.group = slot.group;
          stats.push_back(s);
        }
    }
  }
  for (auto& s : stats)
    for (const auto& slot : gpus)
      if (slot.rank == s.rank && slot.info.index == s.gpu && slot.group == s.group)
        s.gpu_id = slot.gpu_id;
  const auto idle = log.finish(stats, wall);
  record_worker_time(groups, stats, idle, store_sink ? &store_sink->mutex() : nullptr);
  lanes_.add_tallies_to(groups);
  for (const auto& st : rs) {
    if (!st.done || !st.end.contains("groups")) continue;
    for (const auto& g : st.end["groups"]) {
      const auto& t = g.at("tally");
      const auto& s = g.at("sec");
      SweepTally tally{t[0], t[1], t[2], t[3], t[4], 0};
      PhaseSeconds sec;
      sec.shapes = s[0];
      sec.verify = s[1];
      sec.race_setup = s[2];
      sec.sampling = s[3];
      sec.store = s[4];
      sec.setup_workspace = s[5];
      sec.setup_baselines = s[6];
      sec.setup_candidates = s[7];
      sec.setup_warmup = s[8];
      sec.floors = s[9];
      add_tally(*groups.at(g.at("group").get<std::size_t>()), tally, sec);
    }
    for (const auto& f : st.end.value("failed", json::array())) failed_.push_back(f);
  }
  for (const auto& f : lanes_.failed_races()) failed_.push_back(f);
  // Races no rank took: every worker of their group retired (failed twice in a row) or was lost.
  if (const auto left = queue.waiting(); left > 0 && !stop && !error && remote_error.empty())
    failed_.push_back(fmt::format(
        "{} race{} not run: every worker that could take them failed twice in a row or was lost",
        left, left == 1 ? " was" : "s were"));
  if (error) std::rethrow_exception(error);
  if (!remote_error.empty()) throw SweepStop(remote_error);
  for (std::size_t g = 0; g < groups.size() && work.after_races; ++g) {
    bool ran = false;
    for (std::size_t i = 0; i < lanes_.size() && !ran; ++i)
      if (my_slots.at(i).group == g) {
        work.after_races(lanes_.context(i), lanes_.worker(i));
        ran = true;
      }
    if (!ran && ctx_.opt.progress != ProgressMode::quiet)
      fmt::print(stderr,
                 "note: rank 0 has no GPU of device group {} ({}): its post-race stages did not "
                 "run\n",
                 g, groups[g]->spec.name);
  }
}

}  // namespace r4::tune
