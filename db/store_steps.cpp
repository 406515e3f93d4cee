// Store: decode steps (schema v2, `steps` and `step_samples`): the spec's [step] chain timed as a
// whole at one M on one path. The sweep writes them after the races; reports compare the paths of
// one (step, M) and hold each against the sum of its shapes' read floors.
#include <fmt/core.h>

#include "db/store.hpp"
#include "db/store_internal.hpp"

namespace r4::db {

namespace {

// Why `s` cannot be stored, or "".
std::string step_problem(const StepRow& s, std::span<const double> samples) {
  using namespace internal;
  if (s.name.empty()) return "the step has no name";
  if (s.m < 1 || s.m > 64) return fmt::format("M = {} is outside 1..64", s.m);
  if (to_string(s.path) == "?")
    return fmt::format("unknown step path {}", static_cast<int>(s.path));
  if (to_string(s.status) == "?")
    return fmt::format("unknown step status {}", static_cast<int>(s.status));
  if (s.n_samples < 0) return fmt::format("n_samples = {} is negative", s.n_samples);
  if (s.launches < 0) return fmt::format("launches = {} is negative", s.launches);
  if (s.status == StepStatus::failed) {
    // A failed step has no time: a number here would be averaged into a report as if measured.
    if (s.median_us || s.ci_low_us || s.ci_high_us || !samples.empty())
      return "a failed step has no time (median, CI or samples given)";
    return {};
  }
  if (!s.median_us) return "an ok step needs its median_us";
  if (auto p = time_problem("median_us", *s.median_us); !p.empty()) return p;
  if (auto p = ci_problem(s.ci_low_us, s.ci_high_us, s.median_us); !p.empty()) return p;
  if (s.launches < 1) return "an ok step launches at least one kernel (launches = 0)";
  return samples_problem(samples);
}

// The GPU column is last, and NULL on a file from before schema v3 (read-only opens).
std::string step_cols(bool has_gpu) {
  return fmt::format(
      "id, run_id, name, m, path, status, median_us, ci_low_us, ci_high_us, n_samples, launches, "
      "detail, {}",
      has_gpu ? "gpu_id" : "NULL");
}

StepRow read_step_row(const Statement& s) {
  StepRow r;
  r.id = s.i64(0);
  r.run_id = s.i64(1);
  r.name = s.text(2);
  r.m = s.i32(3);
  r.path = parse_step_path(s.text(4));
  r.status = parse_step_status(s.text(5));
  r.median_us = s.opt_f64(6);
  r.ci_low_us = s.opt_f64(7);
  r.ci_high_us = s.opt_f64(8);
  r.n_samples = s.i32(9);
  r.launches = s.i32(10);
  r.detail = s.text(11);
  r.gpu_id = s.opt_i64(12);
  return r;
}

}  // namespace

Id Store::insert_step(const StepRow& r, std::span<const double> samples) {
  const std::string what =
      fmt::format("step '{}' M={} path {} of run {}", r.name, r.m, to_string(r.path), r.run_id);
  if (auto p = step_problem(r, samples); !p.empty())
    throw InvalidRow(fmt::format("refusing to store {}: {}", what, p));
  const int n_samples = samples.empty() ? r.n_samples : static_cast<int>(samples.size());
  Transaction t(*conn_);
  require_run(r.run_id, "a step");
  {
    auto s = conn_->prepare(
        "SELECT id FROM steps WHERE run_id = ?1 AND name = ?2 AND m = ?3 AND path = ?4");
    s.bind_all(r.run_id, r.name, r.m, to_string(r.path));
    if (s.step())
      throw InvalidRow(
          fmt::format("refusing to store {}: it is stored already (step {})", what, s.i64(0)));
  }
  conn_
      ->prepare(
          "INSERT INTO steps(run_id, name, m, path, status, median_us, ci_low_us, ci_high_us, "
          "n_samples, launches, detail, gpu_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
          "?11, ?12)")
      .bind_all(r.run_id, r.name, r.m, to_string(r.path), to_string(r.status), r.median_us,
                r.ci_low_us, r.ci_high_us, n_samples, r.launches, r.detail, r.gpu_id)
      .run();
  const Id id = conn_->last_insert_id();
  internal::insert_samples(*conn_, "step_samples", "step_id", id, samples);
  t.commit();
  return id;
}

std::vector<StepRow> Store::steps(Id run_id) const {
  if (!has_v2_tables_) return {};
  // Paths in kStepPaths order (the enum's), not alphabetically.
  std::string order = "CASE path";
  for (std::size_t i = 0; i < kStepPaths.size(); ++i)
    order += fmt::format(" WHEN '{}' THEN {}", to_string(kStepPaths[i]), i);
  order += " END";
  auto s =
      conn_->prepare(fmt::format("SELECT {} FROM steps WHERE run_id = ?1 ORDER BY name, m, {}, id",
                                 step_cols(has_v4_columns_), order));
  s.bind(1, run_id);
  std::vector<StepRow> out;
  while (s.step()) out.push_back(read_step_row(s));
  return out;
}

std::vector<double> Store::step_samples(Id step) const {
  if (!has_v2_tables_) return {};
  return internal::read_samples(
      *conn_, "SELECT us FROM step_samples WHERE step_id = ?1 ORDER BY seq", step);
}

}  // namespace r4::db
