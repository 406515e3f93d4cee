#include "tuner/tune/verify_stage.hpp"

#include <stdexcept>
#include <string>
#include <tuple>

#include <fmt/core.h>

#include "kernels/family.hpp"
#include "tuner/tune/progress.hpp"

namespace r4::tune {

using nlohmann::json;

db::CheckRow check_outcome(const worker::JobResult& raw, const json& reply) {
  db::CheckRow c;
  if (raw.status == worker::JobStatus::crashed) {
    c.status = db::CheckStatus::fault;
    c.detail = raw.detail;
  } else if (raw.status == worker::JobStatus::timed_out) {
    c.status = db::CheckStatus::timeout;
    c.detail = raw.detail;
  } else if (!reply.value("ok", false)) {
    c.status = reply.value("fatal", false) ? db::CheckStatus::fault : db::CheckStatus::not_run;
    c.detail = reply.value("error", std::string("verify failed"));
  } else {
    c.status = reply.at("pass").get<bool>() ? db::CheckStatus::pass : db::CheckStatus::wrong_result;
    if (reply.contains("max_ratio") && reply["max_ratio"].is_number())
      c.max_error = reply["max_ratio"].get<double>();  // |err| / tol of the worst element
    c.tolerance = 1.0;
    c.detail = reply.value("detail", std::string());
  }
  return c;
}

namespace {

// A failed check is said at once, not only in the database and the summary: a kernel that hangs
// costs a whole --verify-timeout-ms per check, and session 28's H200 sweep sat 420 s in such
// checks (or so its log reads: docs/PERF.md "Session 29") with nothing on its output but progress
// lines its script filtered out. Crashes and timeouts are always said (each costs a worker
// restart, and --max-consecutive-faults bounds a run of them); wrong results and checks the worker
// could not run, the first kMaxWrongLines per worker, since a broken build can fail thousands.
constexpr std::size_t kMaxWrongLines = 20;
void report_failed_check(SweepContext& ctx, std::string_view kname, const Unit& u,
                         const ShapeSpec& sh, int m, const db::CheckRow& c) {
  if (c.status == db::CheckStatus::pass) return;
  const bool crashed = c.status == db::CheckStatus::fault || c.status == db::CheckStatus::timeout;
  if (!crashed && ctx.tally.wrong_lines >= kMaxWrongLines) return;
  std::string line =
      fmt::format("check {}: {} {} at N={} K={} M={}: {}", db::to_string(c.status), kname,
                  kernels::to_string(u.config), sh.n, sh.k, m, c.detail.substr(0, 240));
  if (crashed && ctx.opt.max_consecutive_faults > 0)
    line += fmt::format(" ({} in a row; the sweep stops at {})", ctx.tally.consecutive_faults,
                        ctx.opt.max_consecutive_faults);
  else if (crashed)
    line += fmt::format(" ({} in a row)", ctx.tally.consecutive_faults);
  else if (++ctx.tally.wrong_lines == kMaxWrongLines)
    line += "; further wrong or not-run checks are in the database only";
  progress_event(ctx.opt.progress, line);
}

// Stamps a check's row with its run, config and (shape, M), and stores it.
void store_check(SweepContext& ctx, const Unit& u, const ShapeSpec& sh, int m, db::CheckRow& c) {
  c.run_id = ctx.run;
  c.compile_id = u.compile_id;
  c.n = sh.n;
  c.k = sh.k;
  c.m = m;
  RowBatch b;
  b.checks.push_back(c);
  ctx.write(std::move(b));
}

// A config whose check timed out is not checked again at its other (shape, M): each such check
// would cost another --verify-timeout-ms (30 s) and a worker restart, and a kernel that hangs
// anywhere must not win anywhere. Its later checks are stored as not_run, naming where it hung,
// without a worker call; they neither count nor reset --max-consecutive-faults.
bool skip_hung(SweepContext& ctx, std::string_view kname, const Unit& u, const ShapeSpec& sh,
               int m) {
  const auto where = ctx.hung->find(u.compile_id);
  if (!where) return false;
  db::CheckRow c;
  c.status = db::CheckStatus::not_run;
  c.detail = fmt::format(
      "not run: this config timed out at {} (a kernel that hangs is not "
      "checked again)",
      *where);
  if (!u.injected.empty()) c.detail = "TEST-INJECTED " + u.injected + ": " + c.detail;
  store_check(ctx, u, sh, m, c);
  report_failed_check(ctx, kname, u, sh, m, c);
  ++ctx.tally.verified;
  ++ctx.tally.verify_failed;
  return true;
}

// Checks one unit at (sh, M) in the worker and stores the row. Returns whether it passed.
bool verify_one(SweepContext& ctx, SweepWorker& worker, const Unit& u, const ShapeSpec& sh, int m,
                unsigned seed) {
  const std::string kname(kernels::name(u.id));
  if (skip_hung(ctx, kname, u, sh, m)) return false;
  worker::JobResult raw;
  json req = {{"op", "verify"},
              {"kernel", kname},
              {"binary", u.binary_path},
              {"config", config_json(u.config)},
              {"m", m},
              {"seed", seed}};
  if (!u.injected.empty()) req["injected"] = u.injected;  // a label; the kernel is the fault
  const auto tv = SweepClock::now();
  const auto rep = worker.call(req, ctx.opt.verify_timeout_ms, &raw);
  ctx.sec.verify += since(tv);
  db::CheckRow c = check_outcome(raw, rep);
  if (!u.injected.empty()) c.detail = "TEST-INJECTED " + u.injected + ": " + c.detail;
  store_check(ctx, u, sh, m, c);
  const bool crashed = c.status == db::CheckStatus::fault || c.status == db::CheckStatus::timeout;
  auto& faults = ctx.tally.consecutive_faults;
  faults = crashed ? faults + 1 : 0;
  if (c.status == db::CheckStatus::timeout)
    ctx.hung->add(u.compile_id, fmt::format("N={} K={} M={}", sh.n, sh.k, m));
  report_failed_check(ctx, kname, u, sh, m, c);
  if (crashed && ctx.opt.max_consecutive_faults > 0 && faults >= ctx.opt.max_consecutive_faults)
    throw SweepStop(fmt::format(
        "{} checks in a row crashed the worker or timed out (the last: {} {} at N={} K={} "
        "M={}: {}); the kernel build or the device looks broken, so the sweep stops here. "
        "The run is kept as partial: fix the cause and continue it with --resume, or raise "
        "--max-consecutive-faults",
        faults, kname, kernels::to_string(u.config), sh.n, sh.k, m, c.detail.substr(0, 300)));
  const bool pass = c.status == db::CheckStatus::pass;
  ++ctx.tally.verified;
  if (!pass) ++ctx.tally.verify_failed;
  return pass;
}

}  // namespace

std::vector<Unit*> verify_candidates(SweepContext& ctx, SweepWorker& worker, Plan& plan,
                                     const ShapeSpec& sh, int m) {
  const kernels::Shape shape{sh.n, sh.k, m};
  const auto seed = static_cast<unsigned>(ctx.rng());
  std::vector<Unit*> cands;
  for (auto& u : plan.units) {
    // Validity first: a unit this race does not need may still be compiling (its `ok` being
    // written on the compile stage's thread); the ones it needs are done (run_race waited).
    if (!kernels::is_valid(u.id, u.config, ctx.arch, shape) || !u.ok) continue;
    const auto key = std::make_tuple(u.compile_id, sh.n, sh.k, m);
    auto pass = ctx.checked->find(key);
    if (!pass) {
      pass = verify_one(ctx, worker, u, sh, m, seed);
      ctx.checked->set(key, *pass);
    }
    if (*pass) cands.push_back(&u);
  }
  return cands;
}

}  // namespace r4::tune
