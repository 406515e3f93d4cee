#include "tuner/tune/sweep.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "db/sha256.hpp"
#include "db/sqlite.hpp"
#include "db/store.hpp"
#include "kernels/family.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/gpu/device_json.hpp"
#include "tuner/tune/compile_pool.hpp"
#include "tuner/tune/race.hpp"
#include "tuner/tune/spec.hpp"
#include "tuner/version.hpp"
#include "tuner/worker/process.hpp"

namespace r4::tune {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string dtype_of(kernels::KernelId id) {
  return id == kernels::KernelId::gemm_w4a8_nt ? "w4a8" : "w4a16";
}

db::Config to_db(const kernels::Config& c) {
  return {c.wv, c.sk, c.mb, c.npw, c.nt};
}

json config_json(const kernels::Config& c) {
  return json::array({c.wv, c.sk, c.mb, c.npw, c.nt});
}

// The commit the binary was built from (tuner/version.hpp, refreshed at every build): that is
// what produced the numbers, whatever the current folder's git says.
std::string git_commit() {
  return kGitCommit;
}

std::string hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

bool in_list(const std::vector<int>& allowed, int v) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

// One planned compile unit: a kernel and a config, valid for some (shape, M) of the spec.
struct Unit {
  kernels::KernelId id;
  kernels::Config config;
  std::string injected;  // TEST ONLY: "oob" | "hang" | "wrong" (spec [test] inject), else empty
  gpu::CompileRequest request;
  // After compiling:
  std::string key;
  db::Id compile_id = 0;
  bool ok = false;
  std::string binary_path;
};

struct Plan {
  std::vector<Unit> units;
  std::size_t measurements = 0;  // (unit, shape, M) triples to verify and race
  std::size_t races = 0;
};

Plan make_plan(const Spec& spec, const gpu::Arch& arch) {
  Plan p;
  const auto ms = measured_ms(spec);
  for (const auto& kname : spec.kernels) {
    const auto id = *kernels::parse_kernel(kname);
    const auto sp = spec.space.count(kname) ? spec.space.at(kname) : SpaceSpec{};
    for (const auto& c : kernels::config_space(id, arch)) {
      if (!in_list(sp.wv, c.wv) || !in_list(sp.sk, c.sk) || !in_list(sp.mb, c.mb) ||
          !in_list(sp.npw, c.npw) || !in_list(sp.nt, c.nt))
        continue;
      std::size_t uses = 0;
      for (const auto& sh : spec.shapes)
        for (int m : ms) uses += kernels::is_valid(id, c, arch, {sh.n, sh.k, m});
      if (!uses) continue;
      p.measurements += uses;
      p.units.push_back({id, c, {}, kernels::compile_request(id, c, arch), {}, 0, false, {}});
    }
  }
  // Injected faulty variants: the first kernel's first config valid everywhere, recompiled with a
  // fault. They compile to distinct keys (the define differs) and are verified and timed like any
  // other candidate, so the sweep must survive them.
  for (const auto& fault : spec.inject) {
    const auto id = *kernels::parse_kernel(spec.kernels.front());
    const kernels::Config c{4, 1, 1, 1, 0};
    kernels::CompileOptions o;
    if (fault == "oob") o.test_fault = 1;
    if (fault == "hang") o.test_fault = 2;
    if (fault == "wrong") o.broken_scale = true;
    p.units.push_back({id, c, fault, kernels::compile_request(id, c, arch, o), {}, 0, false, {}});
    for (const auto& sh : spec.shapes)
      for (int m : ms) p.measurements += kernels::is_valid(id, c, arch, {sh.n, sh.k, m});
  }
  p.races = spec.shapes.size() * ms.size();
  return p;
}

// The worker as the race's sampler: one "sample" request per sample.
class WorkerSampler final : public Sampler {
 public:
  struct Failure {
    std::size_t entry;
    std::string detail;
  };
  WorkerSampler(worker::WorkerProcess& w, std::chrono::milliseconds deadline)
      : w_(w), deadline_(deadline) {}
  double sample(std::size_t entry, bool whole_pool) override {
    auto r = w_.call({{"op", "sample"}, {"entry", entry}, {"full", whole_pool}}, deadline_);
    if (r.status != worker::JobStatus::ok) throw Failure{entry, r.detail};
    if (!r.reply.value("ok", false))
      throw Failure{entry, r.reply.value("error", std::string("sample failed"))};
    const double us = r.reply.at("us").get<double>();
    seconds_ += us * 1e-6 * r.reply.value("launches", copies_);
    return us;
  }
  // A round as one request (the worker enqueues the samples back to back). If the worker dies
  // or fails during a round, which entry did it is unknown: RoundFailure makes the sweep race
  // again one sample per request, so the culprit is named (Failure) and only it is dropped.
  struct RoundFailure {
    std::string detail;
  };
  std::vector<double> sample_round(const std::vector<std::size_t>& entries,
                                   bool whole_pool) override {
    if (single_) return Sampler::sample_round(entries, whole_pool);
    auto r = w_.call({{"op", "sample_many"}, {"entries", entries}, {"full", whole_pool}},
                     deadline_ * static_cast<long>(std::max<std::size_t>(1, entries.size())));
    if (r.status != worker::JobStatus::ok) throw RoundFailure{r.detail};
    if (!r.reply.value("ok", false))
      throw RoundFailure{r.reply.value("error", std::string("sample_many failed"))};
    const auto us = r.reply.at("us").get<std::vector<double>>();
    const auto launches = r.reply.at("launches").get<std::vector<int>>();
    if (us.size() != entries.size() || launches.size() != entries.size())
      throw RoundFailure{"sample_many: wrong reply length"};
    for (std::size_t i = 0; i < us.size(); ++i) seconds_ += us[i] * 1e-6 * launches[i];
    return us;
  }
  double device_seconds() const override { return seconds_; }
  void set_copies(int c) { copies_ = c; }
  void set_single(bool s) { single_ = s; }

 private:
  worker::WorkerProcess& w_;
  std::chrono::milliseconds deadline_;
  double seconds_ = 0;
  int copies_ = 1;
  bool single_ = false;
};

class Sweep {
 public:
  Sweep(const SweepOptions& opt, Spec spec, db::Store& store)
      : opt_(opt), spec_(std::move(spec)), store_(store) {}

  int run();

 private:
  void compile_phase(Plan& plan, const gpu::Arch& arch, gpu::Backend& backend);
  bool device_phase(Plan& plan);
  void ensure_worker();
  json call(const json& req, int timeout_ms, worker::JobResult* raw = nullptr);
  void do_shape(Plan& plan, const ShapeSpec& sh);
  void do_race(Plan& plan, const ShapeSpec& sh, int m);
  void print_summary();

  const SweepOptions& opt_;
  Spec spec_;
  db::Store& store_;
  db::Id run_ = 0;
  gpu::Arch arch_;
  std::unique_ptr<worker::WorkerProcess> worker_;
  int worker_generation_ = -1;  // the worker start count our setup was sent to
  json shape_request_;
  bool shape_sent_ = false;
  json open_reply_;
  double ceiling_gbps_ = 0;
  std::string binary_dir_;
  std::map<std::tuple<db::Id, std::int64_t, std::int64_t, int>, bool> checked_;  // resume
  std::set<std::tuple<std::int64_t, std::int64_t, int>> raced_;  // (N, K, M) races stored
  std::size_t verified_ = 0, verify_failed_ = 0, timed_ = 0, raced_out_ = 0, failed_ = 0;
  int consecutive_faults_ = 0;  // checks in a row that crashed the worker or timed out
  // Wall seconds per phase of this invocation, reported at the end (where a sweep's time goes).
  struct Seconds {
    double open = 0, compile = 0, shapes = 0, verify = 0, race_setup = 0, sampling = 0, store = 0,
           total = 0;
    // Inside race setup, as the worker reports it.
    double setup_workspace = 0, setup_baselines = 0, setup_candidates = 0, setup_warmup = 0;
  } sec_;
  std::mt19937_64 rng_{0x5eedULL};
};

void Sweep::compile_phase(Plan& plan, const gpu::Arch& arch, gpu::Backend& backend) {
  std::vector<gpu::CompileRequest> reqs;
  for (const auto& u : plan.units) reqs.push_back(u.request);
  Progress prog(opt_.progress, "compile", reqs.size());
  std::size_t cached = 0, bad = 0, spilled = 0;
  const std::string compiler = backend.compiler_version();
  CompileCache cache{[&](const std::string& key) -> std::optional<gpu::CompileResult> {
                       auto row = store_.find_compile(key);
                       if (!row) return std::nullopt;
                       gpu::CompileResult r;
                       r.ok = row->status == db::CompileStatus::ok ||
                              row->status == db::CompileStatus::spills;
                       r.log = row->log;
                       r.binary = row->binary;
                       r.seconds = row->compile_seconds;
                       return r;
                     },
                     nullptr};
  auto outcomes =
      compile_all(backend, reqs, cache, opt_.threads, [&](std::size_t i, const CompileOutcome& o) {
        auto& u = plan.units[i];
        u.key = o.key;
        const std::string kname(kernels::name(u.id));
        db::CompileRow row;
        if (o.from_cache) {
          ++cached;
          auto existing = store_.find_compile(o.key);
          u.compile_id = existing->id;
          store_.link_compile(run_, u.compile_id);
          row = *existing;
        } else {
          row.cache_key = o.key;
          row.kernel = kname;
          row.config = to_db(u.config);
          row.arch = arch.name;
          row.source_hash = db::sha256_hex(u.request.source);
          for (const auto& op : o.result.options) row.options += op + "\n";
          for (const auto& d : u.request.defines) row.options += "-D" + d + "\n";
          row.compiler_version = compiler;
          row.compile_seconds = o.result.seconds;
          row.log = (u.injected.empty() ? "" : "TEST-INJECTED FAULT: " + u.injected + "\n") +
                    o.result.log;
          row.status = db::CompileStatus::compile_error;
          if (o.result.ok) {
            const auto it = o.result.resources.find(kname);
            const gpu::Resources res =
                it != o.result.resources.end() ? it->second : gpu::Resources{};
            row.registers = res.registers;
            row.spill_bytes = res.spill_stores + res.spill_loads;
            row.stack_bytes = res.stack_bytes;
            row.shared_bytes = res.shared_bytes;
            row.status = res.spills() ? db::CompileStatus::spills : db::CompileStatus::ok;
            row.binary = o.result.binary;
          }
          u.compile_id = store_.insert_compile(row, run_);
        }
        u.ok = row.status == db::CompileStatus::ok;
        if (row.status == db::CompileStatus::spills) ++spilled;
        if (row.status == db::CompileStatus::compile_error) {
          ++bad;
          prog.note(fmt::format("compile failed: {} {}: {}", kname, kernels::to_string(u.config),
                                row.log.substr(0, 300)));
        }
        if (u.ok && !binary_dir_.empty()) {
          u.binary_path = binary_dir_ + "/" + u.key + ".bin";
          std::ofstream(u.binary_path, std::ios::binary)
              .write(reinterpret_cast<const char*>(row.binary.data()),
                     static_cast<std::streamsize>(row.binary.size()));
        }
        prog.advance(
            1, fmt::format("{} cached, {} failed, {} spilled (pruned)", cached, bad, spilled));
      });
  (void)outcomes;
  prog.finish(fmt::format("{} compiled, {} from cache, {} failed, {} pruned for spills",
                          reqs.size() - cached, cached, bad, spilled));
}

void Sweep::ensure_worker() {
  if (!worker_) {
    worker_ = std::make_unique<worker::WorkerProcess>(
        opt_.worker_argv.empty() ? worker::self_worker_argv() : opt_.worker_argv);
  }
  if (worker_generation_ == worker_->starts() && worker_->running() && shape_sent_) return;
  // A fresh worker (after a crash): open the device, re-create the shape's pool.
  const auto failed = [](const worker::JobResult& r) {
    if (r.status != worker::JobStatus::ok) return r.detail;
    if (!r.reply.value("ok", false)) return r.reply.value("error", std::string("error"));
    return std::string();
  };
  if (!worker_->running() || worker_generation_ != worker_->starts()) {
    auto r = worker_->call({{"op", "open"}, {"device", opt_.device}, {"ceiling", false}},
                           std::chrono::milliseconds(120000));
    if (auto why = failed(r); !why.empty())
      throw std::runtime_error("the worker could not open the device: " + why);
    worker_generation_ = worker_->starts();
    shape_sent_ = false;
  }
  if (!shape_request_.is_null() && !shape_sent_) {
    auto r = worker_->call(shape_request_, std::chrono::milliseconds(300000));
    if (auto why = failed(r); !why.empty())
      throw std::runtime_error("the worker could not set up the shape: " + why);
    shape_sent_ = true;
  }
}

json Sweep::call(const json& req, int timeout_ms, worker::JobResult* raw) {
  ensure_worker();
  auto r = worker_->call(req, std::chrono::milliseconds(timeout_ms));
  if (raw) *raw = r;
  if (r.status != worker::JobStatus::ok) return json{{"ok", false}, {"error", r.detail}};
  return r.reply;
}

void Sweep::do_race(Plan& plan, const ShapeSpec& sh, int m) {
  if (raced_.count({sh.n, sh.k, m})) return;  // done before a --resume
  const kernels::Shape shape{sh.n, sh.k, m};
  const auto& arch = arch_;

  // Verify every candidate at this (shape, M) before it can be timed, all on one fresh set of
  // random activations drawn for this race (the worker computes their reference once).
  const auto seed = static_cast<unsigned>(rng_());
  std::vector<Unit*> cands;
  for (auto& u : plan.units) {
    if (!u.ok || !kernels::is_valid(u.id, u.config, arch, shape)) continue;
    const std::string kname(kernels::name(u.id));
    const auto key = std::make_tuple(u.compile_id, sh.n, sh.k, m);
    auto it = checked_.find(key);
    if (it == checked_.end()) {
      worker::JobResult raw;
      json req = {{"op", "verify"},
                  {"kernel", kname},
                  {"binary", u.binary_path},
                  {"config", config_json(u.config)},
                  {"m", m},
                  {"seed", seed}};
      if (!u.injected.empty()) req["injected"] = u.injected;  // a label; the kernel is the fault
      const auto tv = Clock::now();
      const auto rep = call(req, opt_.verify_timeout_ms, &raw);
      sec_.verify += since(tv);
      db::CheckRow c;
      c.run_id = run_;
      c.compile_id = u.compile_id;
      c.n = sh.n;
      c.k = sh.k;
      c.m = m;
      if (raw.status == worker::JobStatus::crashed) {
        c.status = db::CheckStatus::fault;
        c.detail = raw.detail;
      } else if (raw.status == worker::JobStatus::timed_out) {
        c.status = db::CheckStatus::timeout;
        c.detail = raw.detail;
      } else if (!rep.value("ok", false)) {
        c.status = rep.value("fatal", false) ? db::CheckStatus::fault : db::CheckStatus::not_run;
        c.detail = rep.value("error", std::string("verify failed"));
      } else {
        c.status =
            rep.at("pass").get<bool>() ? db::CheckStatus::pass : db::CheckStatus::wrong_result;
        if (rep.contains("max_ratio") && rep["max_ratio"].is_number())
          c.max_error = rep["max_ratio"].get<double>();  // |err| / tol of the worst element
        c.tolerance = 1.0;
        c.detail = rep.value("detail", std::string());
      }
      if (!u.injected.empty()) c.detail = "TEST-INJECTED " + u.injected + ": " + c.detail;
      store_.insert_check(c);
      const bool crashed =
          c.status == db::CheckStatus::fault || c.status == db::CheckStatus::timeout;
      consecutive_faults_ = crashed ? consecutive_faults_ + 1 : 0;
      if (crashed && opt_.max_consecutive_faults > 0 &&
          consecutive_faults_ >= opt_.max_consecutive_faults)
        throw std::runtime_error(fmt::format(
            "{} checks in a row crashed the worker or timed out (the last: {} {} at N={} K={} "
            "M={}: {}); the kernel build or the device looks broken, so the sweep stops here. "
            "The run is kept as partial: fix the cause and continue it with --resume, or raise "
            "--max-consecutive-faults",
            consecutive_faults_, kname, kernels::to_string(u.config), sh.n, sh.k, m,
            c.detail.substr(0, 300)));
      const bool pass = c.status == db::CheckStatus::pass;
      ++verified_;
      if (!pass) ++verify_failed_;
      it = checked_.emplace(key, pass).first;
    }
    if (it->second) cands.push_back(&u);
  }
  if (cands.empty()) {
    raced_.insert({sh.n, sh.k, m});
    return;
  }

  // One interleaved race per (shape, M): every kernel's verified configs (one group per kernel,
  // so each kernel gets its own winner) and the baselines, which are thus measured once here.
  std::vector<std::string> baselines = spec_.baselines;
  const auto group_of = [&](const Unit* u) {
    const auto n = kernels::name(u->id);
    return static_cast<int>(std::find(spec_.kernels.begin(), spec_.kernels.end(), n) -
                            spec_.kernels.begin());
  };
  bool single_samples = false;
  for (int attempt = 0; attempt < 8 && !cands.empty(); ++attempt) {
    json entries = json::array();
    for (auto* u : cands)
      entries.push_back({{"kernel", std::string(kernels::name(u->id))},
                         {"binary", u->binary_path},
                         {"config", config_json(u->config)},
                         {"injected", u->injected}});
    for (const auto& b : baselines) entries.push_back({{"baseline", b}});
    worker::JobResult raw;
    const auto ts = Clock::now();
    const auto prep = call(
        {{"op", "race"}, {"m", m}, {"entries", entries}, {"warmup", spec_.stop.warmup_replays}},
        600000, &raw);
    sec_.race_setup += since(ts);
    if (prep.contains("setup_seconds")) {
      const auto& ss = prep["setup_seconds"];
      sec_.setup_workspace += ss.value("workspace", 0.0);
      sec_.setup_baselines += ss.value("baselines", 0.0);
      sec_.setup_candidates += ss.value("candidates", 0.0);
      sec_.setup_warmup += ss.value("warmup", 0.0);
    }
    if (!prep.value("ok", false))
      throw std::runtime_error(fmt::format("race setup failed for N={} K={} M={}: {}", sh.n, sh.k,
                                           m, prep.value("error", std::string())));
    // Baselines the library cannot run at this shape leave the race (noted, not timed).
    std::vector<std::string> live_baselines;
    std::vector<std::size_t> map;  // race entry -> worker entry
    for (std::size_t i = 0; i < cands.size(); ++i) map.push_back(i);
    for (std::size_t b = 0; b < baselines.size(); ++b) {
      if (prep["ready"][cands.size() + b].get<bool>()) {
        live_baselines.push_back(baselines[b]);
        map.push_back(cands.size() + b);
      }
    }
    std::vector<int> groups;
    int n_groups = 0;
    {
      // Renumber the kernels present into 0..G-1.
      std::map<int, int> dense;
      for (auto* u : cands) dense.emplace(group_of(u), 0);
      for (auto& [k, v] : dense) v = n_groups++;
      for (auto* u : cands) groups.push_back(dense[group_of(u)]);
    }
    struct Mapped final : Sampler {
      WorkerSampler& s;
      std::vector<std::size_t>& map;
      Mapped(WorkerSampler& ws, std::vector<std::size_t>& mp) : s(ws), map(mp) {}
      double sample(std::size_t i, bool whole) override { return s.sample(map[i], whole); }
      std::vector<double> sample_round(const std::vector<std::size_t>& es, bool whole) override {
        std::vector<std::size_t> w;
        for (std::size_t e : es) w.push_back(map[e]);
        return s.sample_round(w, whole);
      }
      double device_seconds() const override { return s.device_seconds(); }
    };
    WorkerSampler ws(*worker_, std::chrono::milliseconds(opt_.sample_timeout_ms));
    ws.set_copies(prep.value("copies", 1));
    ws.set_single(single_samples);
    Mapped sampler(ws, map);
    RaceOutcome out;
    try {
      const auto tr = Clock::now();
      out = race(sampler, cands.size(), live_baselines.size(), spec_.stop, rng_, groups);
      sec_.sampling += since(tr);
    } catch (const WorkerSampler::RoundFailure& f) {
      // Race again, one sample per request, to find which entry it was.
      if (opt_.progress != ProgressMode::quiet)
        fmt::print(stderr,
                   "a round of N={} K={} M={} failed ({}); racing again one sample at a time to "
                   "find the entry\n",
                   sh.n, sh.k, m, f.detail.substr(0, 200));
      single_samples = true;
      continue;
    } catch (const WorkerSampler::Failure& f) {
      // The sampled entry faulted or hung while being timed: record it, race again without it.
      const std::size_t e = f.entry;  // worker entry index
      if (e < cands.size()) {
        auto* bad = cands[e];
        db::MeasurementRow mr;
        mr.run_id = run_;
        mr.compile_id = bad->compile_id;
        mr.kernel = std::string(kernels::name(bad->id));
        mr.dtype = dtype_of(bad->id);
        mr.n = sh.n;
        mr.k = sh.k;
        mr.m = m;
        mr.config = to_db(bad->config);
        mr.status = db::MeasurementStatus::failed;
        mr.detail = "failed while timing: " + f.detail;
        store_.insert_measurement(mr);
        ++failed_;
        cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(e));
      } else {
        baselines.erase(baselines.begin() + static_cast<std::ptrdiff_t>(e - cands.size()));
      }
      continue;
    }

    // Store the race in one transaction: a kill loses at most this race.
    const auto wbytes = static_cast<double>(kernels::weight_bytes(sh.n, sh.k));
    std::map<std::string, double> base_median;
    const auto tw = Clock::now();
    db::Transaction tx(store_.connection());
    std::vector<db::Id> mids(cands.size());
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto& e = out.entries[i];
      db::MeasurementRow mr;
      mr.run_id = run_;
      mr.compile_id = cands[i]->compile_id;
      mr.kernel = std::string(kernels::name(cands[i]->id));
      mr.dtype = dtype_of(cands[i]->id);
      mr.n = sh.n;
      mr.k = sh.k;
      mr.m = m;
      mr.config = to_db(cands[i]->config);
      mr.status = e.status == EntryStatus::raced_out ? db::MeasurementStatus::raced_out
                                                     : db::MeasurementStatus::ok;
      const bool finalist = !e.remeasured.empty();
      const auto& s = finalist ? e.final_summary : e.summary;
      mr.median_us = s.median;
      mr.ci_low_us = s.ci_low;
      mr.ci_high_us = s.ci_high;
      mr.gbps = wbytes / (s.median * 1e-6) / 1e9;
      if (ceiling_gbps_ > 0) mr.pct_of_ceiling = 100.0 * *mr.gbps / ceiling_gbps_;
      const int pool = prep.value("copies", 0), slice = prep.value("slice_len", pool);
      const std::string status_word = e.status == EntryStatus::converged ? "converged"
                                      : e.status == EntryStatus::capped  ? "capped"
                                                                         : "raced out";
      mr.detail = finalist
                      ? fmt::format(
                            "finalist, re-measured over the whole {}-copy pool; screening median "
                            "{:.3f} us over {} samples of {}-launch slices ({})",
                            pool, e.summary.median, e.samples.size(), slice, status_word)
                      : fmt::format("{}; screened on {}-launch slices of a {}-copy pool",
                                    status_word, slice, pool);
      mids[i] = store_.insert_measurement(mr, finalist ? e.remeasured : e.samples);
      mr.status == db::MeasurementStatus::raced_out ? ++raced_out_ : ++timed_;
    }
    for (std::size_t b = 0; b < live_baselines.size(); ++b) {
      const auto& e = out.entries[cands.size() + b];
      std::vector<double> all = e.samples;
      all.insert(all.end(), e.remeasured.begin(), e.remeasured.end());
      const auto s = summarize(all);
      db::BaselineRow br;
      br.run_id = run_;
      br.kind = live_baselines[b] == "bf16" ? db::BaselineKind::bf16 : db::BaselineKind::fp8_block;
      br.n = sh.n;
      br.k = sh.k;
      br.m = m;
      br.median_us = s.median;
      br.ci_low_us = s.ci_low;
      br.ci_high_us = s.ci_high;
      br.algo = prep["notes"][map[cands.size() + b]].get<std::string>();
      store_.insert_baseline(br, all);
      // Speedups use the baselines' re-measured medians, taken interleaved with the finalists.
      base_median[live_baselines[b]] = e.final_summary.median;
    }
    const bool band_top =
        std::find(spec_.band_limits.begin(), spec_.band_limits.end(), m) != spec_.band_limits.end();
    for (std::size_t g = 0; band_top && g < out.winners.size(); ++g) {
      const std::size_t wi = out.winners[g];
      if (wi >= cands.size()) continue;
      const auto& we = out.entries[wi];
      db::WinnerRow w;
      w.run_id = run_;
      w.measurement_id = mids[wi];
      w.kernel = std::string(kernels::name(cands[wi]->id));
      w.dtype = dtype_of(cands[wi]->id);
      w.n = sh.n;
      w.k = sh.k;
      w.band_limit = m;
      w.m_measured = m;
      w.config = to_db(cands[wi]->config);
      w.median_us = we.final_summary.median;
      if (base_median.count("bf16")) w.speedup_vs_bf16 = base_median["bf16"] / w.median_us;
      if (base_median.count("fp8_block")) w.speedup_vs_fp8 = base_median["fp8_block"] / w.median_us;
      w.remeasured = true;
      store_.insert_winner(w);
    }
    tx.commit();
    sec_.store += since(tw);
    raced_.insert({sh.n, sh.k, m});
    return;
  }
}

void Sweep::do_shape(Plan& plan, const ShapeSpec& sh) {
  shape_request_ = {{"op", "shape"},
                    {"n", sh.n},
                    {"k", sh.k},
                    {"seed", static_cast<unsigned>(sh.n * 131 + sh.k)},
                    {"llc_factor", spec_.pool.llc_factor},
                    {"llc_bytes", spec_.pool.llc_bytes},
                    {"max_bytes", spec_.pool.max_bytes},
                    {"max_slices", spec_.pool.screen_slices}};
  shape_sent_ = false;  // the next call sends it
  const auto t0 = Clock::now();
  ensure_worker();
  sec_.shapes += since(t0);
  for (int m : measured_ms(spec_)) do_race(plan, sh, m);
}

bool Sweep::device_phase(Plan& plan) {
  // The worker opened the device and measured the streaming-read ceiling in this run.
  const json& r = open_reply_;
  ceiling_gbps_ = r.value("ceiling_gbps", 0.0);
  // A resumed run keeps the ceiling it measured first, so its percentages stay comparable.
  bool have_ceiling = false;
  for (const auto& b : store_.baselines(run_)) {
    if (b.kind != db::BaselineKind::streaming_ceiling) continue;
    have_ceiling = true;
    if (b.gbps) ceiling_gbps_ = *b.gbps;
  }
  db::BaselineRow c;
  c.run_id = run_;
  c.kind = db::BaselineKind::streaming_ceiling;
  c.gbps = ceiling_gbps_;
  c.median_us =
      static_cast<double>(r.value("ceiling_bytes", std::int64_t{0})) / (ceiling_gbps_ * 1e3);
  c.n_samples = r.value("ceiling_samples", 0);
  c.algo =
      fmt::format("grid-stride 16-byte reads of {} bytes; best sample {:.0f} GB/s",
                  r.value("ceiling_bytes", std::int64_t{0}), r.value("ceiling_gbps_best", 0.0));
  if (!have_ceiling) store_.insert_baseline(c);

  Progress prog(opt_.progress, "measure", spec_.shapes.size() * measured_ms(spec_).size());
  for (const auto& sh : spec_.shapes) {
    shape_request_ = json();
    const auto t0 = Clock::now();
    std::size_t before = raced_.size();
    do_shape(plan, sh);
    prog.advance(raced_.size() - before,
                 fmt::format("{} ({}x{}) {:.1f} s; {} verified ({} failed), {} timed, {} raced out",
                             sh.name.empty() ? "shape" : sh.name, sh.n, sh.k, since(t0), verified_,
                             verify_failed_, timed_, raced_out_));
  }
  prog.finish();
  worker_->stop();
  return true;
}

void Sweep::print_summary() {
  const auto winners = store_.winners(run_, db::OnInvalid::flag);
  const auto counts = store_.counts(run_);
  if (opt_.json) {
    json out = {{"run", run_},
                {"ceiling_gbps", ceiling_gbps_},
                {"counts",
                 {{"compiles", counts.compiles},
                  {"checks", counts.checks},
                  {"checks_failed", counts.checks_failed},
                  {"measurements", counts.measurements},
                  {"samples", counts.samples},
                  {"winners", counts.winners}}},
                {"seconds",
                 {{"open", sec_.open},
                  {"compile", sec_.compile},
                  {"shapes", sec_.shapes},
                  {"verify", sec_.verify},
                  {"race_setup", sec_.race_setup},
                  {"race_setup_workspace", sec_.setup_workspace},
                  {"race_setup_baselines", sec_.setup_baselines},
                  {"race_setup_candidates", sec_.setup_candidates},
                  {"race_setup_warmup", sec_.setup_warmup},
                  {"sampling", sec_.sampling},
                  {"store", sec_.store},
                  {"total", sec_.total}}},
                {"winners", json::array()}};
    for (const auto& w : winners)
      out["winners"].push_back(
          {{"kernel", w.kernel},
           {"n", w.n},
           {"k", w.k},
           {"band", w.band_limit},
           {"config", {w.config.wv, w.config.sk, w.config.mb, w.config.npw, w.config.nt}},
           {"us", w.median_us},
           {"vs_bf16", w.speedup_vs_bf16.value_or(0)},
           {"vs_fp8", w.speedup_vs_fp8.value_or(0)}});
    fmt::print("{}\n", out.dump(2));
    return;
  }
  if (opt_.progress == ProgressMode::quiet) return;
  fmt::print(
      "\nrun {}: {} compiles, {} checks ({} failed), {} measurements, {} samples, {} winners\n",
      run_, counts.compiles, counts.checks, counts.checks_failed, counts.measurements,
      counts.samples, counts.winners);
  if (ceiling_gbps_ > 0) fmt::print("streaming-read ceiling {:.0f} GB/s\n", ceiling_gbps_);
  // "other": planning, the run's rows, compile-cache reads, worker round trips between phases.
  const double other = sec_.total - (sec_.open + sec_.compile + sec_.shapes + sec_.verify +
                                     sec_.race_setup + sec_.sampling + sec_.store);
  fmt::print(
      "time: open and ceiling {:.1f} s, compile {:.1f} s, shapes {:.1f} s, verify {:.1f} s, race "
      "setup {:.1f} s, sampling {:.1f} s, store {:.1f} s, other {:.1f} s; total {:.1f} s\n",
      sec_.open, sec_.compile, sec_.shapes, sec_.verify, sec_.race_setup, sec_.sampling, sec_.store,
      std::max(0.0, other), sec_.total);
  fmt::print(
      "race setup: workspace {:.1f} s, baselines {:.1f} s, candidates {:.1f} s, warm-up "
      "{:.1f} s\n",
      sec_.setup_workspace, sec_.setup_baselines, sec_.setup_candidates, sec_.setup_warmup);
  fmt::print("{:<14} {:<18} {:>5} {:<18} {:>9} {:>8} {:>8}\n", "kernel", "shape", "band", "config",
             "us", "vs bf16", "vs fp8");
  for (const auto& w : winners)
    fmt::print("{:<14} {:<18} {:>5} {:<18} {:>9.2f} {:>7.2f}x {:>7.2f}x\n", w.kernel,
               store_.shape_name(run_, w.n, w.k), w.band_limit,
               fmt::format("({},{},{},{},{})", w.config.wv, w.config.sk, w.config.mb, w.config.npw,
                           w.config.nt),
               w.median_us, w.speedup_vs_bf16.value_or(0), w.speedup_vs_fp8.value_or(0));
}

int Sweep::run() {
  const auto t0 = Clock::now();
  // Which arch, and is there a device to time on? The driver never touches the GPU itself: the
  // worker opens it, measures the ceiling and reports what it found (so a replay worker can stand
  // in for it in tests, and a faulting kernel cannot take the driver's context down).
  std::optional<gpu::DeviceInfo> device;
  if (!opt_.compile_only) {
    worker_ = std::make_unique<worker::WorkerProcess>(
        opt_.worker_argv.empty() ? worker::self_worker_argv() : opt_.worker_argv);
    auto r = worker_->call({{"op", "open"}, {"device", opt_.device}, {"ceiling", true}},
                           std::chrono::milliseconds(180000));
    sec_.open = since(t0);
    if (r.status != worker::JobStatus::ok || !r.reply.value("ok", false)) {
      fmt::print(
          stderr,
          "r4tune sweep: no GPU to time on ({}); use --compile-only to plan, compile and "
          "prune without one.\n",
          r.status == worker::JobStatus::ok ? r.reply.value("error", std::string("?")) : r.detail);
      return 4;
    }
    worker_generation_ = worker_->starts();
    device = gpu::device_from_json(r.reply.at("device"));
    open_reply_ = r.reply;
  }
  gpu::Arch arch;
  try {
    arch = gpu::Arch::from(!opt_.arch.empty() ? opt_.arch
                           : device           ? device->arch.name
                                              : spec_.compile_arch);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "r4tune sweep: {}\n", e.what());
    return 2;
  }
  auto backend = gpu::make_backend(arch);  // AMD: hipRTC if it knows the arch, else clang-19
  arch_ = arch;

  // The run: resumed or new.
  std::optional<db::Id> device_id;
  if (device && !opt_.compile_only) {
    db::DeviceRow d;
    d.name = device->name;
    d.vendor = std::string(gpu::to_string(device->vendor));
    d.arch = device->arch.name;
    d.multiprocessors = device->multiprocessors;
    d.l2_bytes = device->l2_bytes;
    d.llc_bytes = spec_.pool.llc_bytes > 0 ? spec_.pool.llc_bytes : device->llc_bytes;
    d.memory_bytes = device->memory_bytes;
    d.sm_clock_mhz = device->sm_clock_khz / 1000;
    d.memory_clock_mhz = device->memory_clock_khz / 1000;
    d.memory_bus_bits = device->memory_bus_bits;
    d.pci_bus_id = device->pci_bus_id;
    d.driver_version = device->driver_version;
    d.runtime_version = device->runtime_version;
    d.compiler_version = backend->compiler_version();
    d.info_json = gpu::to_json(*device).dump();
    device_id = store_.upsert_device(d);
  }
  if (opt_.resume) {
    for (const auto& r : store_.list_runs())
      if (r.spec_name == spec_.name && r.spec_text == spec_.text &&
          (r.status == db::RunStatus::running || r.status == db::RunStatus::partial) &&
          r.device_id == device_id)
        run_ = r.id;  // list_runs is oldest first: the last match is the newest
    if (!run_) {
      fmt::print(stderr,
                 "r4tune sweep --resume: no unfinished run of spec '{}' on this device in {}\n",
                 spec_.name, opt_.db_path);
      return 3;
    }
    for (const auto& c : store_.checks(run_))
      checked_[{c.compile_id, c.n, c.k, c.m}] = c.status == db::CheckStatus::pass;
    for (const auto& m : store_.measurements(run_))
      if (m.status != db::MeasurementStatus::failed) raced_.insert({m.n, m.k, m.m});
  } else {
    db::RunRow r;
    r.spec_name = spec_.name;
    r.spec_text = spec_.text;
    r.git_commit = git_commit();
    r.r4tune_version = kVersion;
    r.host = hostname();
    r.device_id = device_id;
    r.notes = opt_.compile_only ? "compile-only: planned, compiled and pruned; nothing timed" : "";
    run_ = store_.begin_run(r);
    for (const auto& sh : spec_.shapes)
      if (!sh.name.empty()) store_.set_shape_name(run_, sh.n, sh.k, sh.name);
  }

  Plan plan = make_plan(spec_, arch);
  std::size_t cached = 0;
  const std::string compiler = backend->compiler_version();
  for (auto& u : plan.units)
    cached += store_.find_compile(compile_key(u.request, compiler)).has_value();
  if (opt_.progress != ProgressMode::quiet) {
    fmt::print(stderr,
               "plan: {} on {} ({}); {} kernels x {} shapes x {} M values; {} configs to compile "
               "({} cached), {} (config, shape, M) to verify and time in {} races\n",
               spec_.name, device ? device->name : "no device", arch.name, spec_.kernels.size(),
               spec_.shapes.size(), measured_ms(spec_).size(), plan.units.size(), cached,
               plan.measurements, plan.races);
    const double est_compile = static_cast<double>(plan.units.size() - cached) * 0.6 /
                               std::max(1u, std::thread::hardware_concurrency());
    const double est_measure =
        opt_.compile_only ? 0 : static_cast<double>(plan.races) * (spec_.stop.max_seconds + 0.5);
    fmt::print(stderr, "estimate: compile about {:.0f} s, measure at most {:.0f} s\n", est_compile,
               est_measure);
  }

  char tmpl[] = "/tmp/r4tune-bin-XXXXXX";
  if (!opt_.compile_only) {
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    binary_dir_ = tmpl;
  }
  const auto tc = Clock::now();
  compile_phase(plan, arch, *backend);
  sec_.compile = since(tc);

  if (opt_.compile_only || !device) {
    store_.finish_run(run_, db::RunStatus::partial);
    store_.mark_partial(run_, "compile-only: nothing could be timed");
    if (opt_.progress != ProgressMode::quiet)
      fmt::print(stderr,
                 "compile-only: {} configs planned and compiled for {}; nothing was timed "
                 "(no GPU{}). Run {} in {}.\n",
                 plan.units.size(), arch.name, device ? " asked for" : " present", run_,
                 opt_.db_path);
    if (opt_.json) print_summary();
    return 0;
  }
  try {
    device_phase(plan);
  } catch (...) {
    store_.mark_partial(run_, "the sweep stopped early: see the log");
    std::error_code ec;
    fs::remove_all(binary_dir_, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(binary_dir_, ec);
  store_.finish_run(run_, db::RunStatus::complete);
  sec_.total = since(t0);
  print_summary();
  if (opt_.progress != ProgressMode::quiet)
    fmt::print(stderr, "sweep finished in {:.1f} s; database {}\n", since(t0), opt_.db_path);
  return 0;
}

}  // namespace

int run_sweep(const SweepOptions& opt) {
  Spec spec = load_spec(opt.spec_path);
  auto store = db::Store::open(opt.db_path);
  store.set_config_validator([](const db::KernelConfigRow& row) {
    auto id = kernels::parse_kernel(row.kernel);
    auto arch = gpu::Arch::parse(row.arch);
    if (!id || !arch) return false;
    return kernels::is_valid(
        *id, {row.config.wv, row.config.sk, row.config.mb, row.config.npw, row.config.nt}, *arch,
        {row.n, row.k, std::max(1, row.m)});
  });
  Sweep s(opt, std::move(spec), store);
  return s.run();
}

}  // namespace r4::tune
