// Store: the physical limits a run measures (schema v2, `floors` and `floor_samples`): the launch
// floor and each shape's read floor. Every measurement's x_floor is its median over the read
// floor of its shape (docs/DB.md "Floors and steps").
#include <fmt/core.h>

#include "db/store.hpp"
#include "db/store_internal.hpp"

namespace r4::db {

namespace {

// Why `f` cannot be stored, or "".
std::string floor_problem(const FloorRow& f, std::span<const double> samples) {
  using namespace internal;
  if (to_string(f.kind) == "?")
    return fmt::format("unknown floor kind {}", static_cast<int>(f.kind));
  if (f.kind == FloorKind::launch && (f.n != 0 || f.k != 0 || f.bytes != 0))
    return fmt::format("a launch floor has N = K = bytes = 0, not N={} K={} bytes={}", f.n, f.k,
                       f.bytes);
  if (f.kind == FloorKind::read && (f.n <= 0 || f.k <= 0 || f.bytes <= 0))
    return fmt::format("a read floor needs positive N, K and bytes, not N={} K={} bytes={}", f.n,
                       f.k, f.bytes);
  if (auto p = time_problem("median_us", f.median_us); !p.empty()) return p;
  if (auto p = ci_problem(f.ci_low_us, f.ci_high_us, f.median_us); !p.empty()) return p;
  if (f.gbps && (!std::isfinite(*f.gbps) || *f.gbps <= 0))
    return fmt::format("gbps = {} is not a positive bandwidth", *f.gbps);
  if (f.n_samples < 0) return fmt::format("n_samples = {} is negative", f.n_samples);
  return samples_problem(samples);
}

std::string describe(const FloorRow& f) {
  if (f.kind == FloorKind::launch) return fmt::format("the launch floor of run {}", f.run_id);
  return fmt::format("the read floor of run {} (N={} K={} bytes={})", f.run_id, f.n, f.k, f.bytes);
}

// The GPU column is last, and NULL on a file from before schema v3 (read-only opens).
std::string floor_cols(bool has_gpu) {
  return fmt::format(
      "id, run_id, kind, n, k, bytes, median_us, ci_low_us, ci_high_us, n_samples, gbps, detail, "
      "{}",
      has_gpu ? "gpu_id" : "NULL");
}

FloorRow read_floor_row(const Statement& s) {
  FloorRow f;
  f.id = s.i64(0);
  f.run_id = s.i64(1);
  f.kind = parse_floor_kind(s.text(2));
  f.n = s.i64(3);
  f.k = s.i64(4);
  f.bytes = s.i64(5);
  f.median_us = s.f64(6);
  f.ci_low_us = s.opt_f64(7);
  f.ci_high_us = s.opt_f64(8);
  f.n_samples = s.i32(9);
  f.gbps = s.opt_f64(10);
  f.detail = s.text(11);
  f.gpu_id = s.opt_i64(12);
  return f;
}

}  // namespace

Id Store::insert_floor(const FloorRow& f, std::span<const double> samples) {
  if (auto p = floor_problem(f, samples); !p.empty())
    throw InvalidRow(fmt::format("refusing to store {}: {}", describe(f), p));
  const int n_samples = samples.empty() ? f.n_samples : static_cast<int>(samples.size());
  Transaction t(*conn_);
  require_run(f.run_id, "a floor");
  {
    auto s = conn_->prepare(
        "SELECT id FROM floors WHERE run_id = ?1 AND kind = ?2 AND n = ?3 AND k = ?4 AND "
        "bytes = ?5");
    s.bind_all(f.run_id, to_string(f.kind), f.n, f.k, f.bytes);
    if (s.step())
      throw InvalidRow(fmt::format("refusing to store {}: it is stored already (floor {})",
                                   describe(f), s.i64(0)));
  }
  conn_
      ->prepare(
          "INSERT INTO floors(run_id, kind, n, k, bytes, median_us, ci_low_us, ci_high_us, "
          "n_samples, gbps, detail, gpu_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
          "?12)")
      .bind_all(f.run_id, to_string(f.kind), f.n, f.k, f.bytes, f.median_us, f.ci_low_us,
                f.ci_high_us, n_samples, f.gbps, f.detail, f.gpu_id)
      .run();
  const Id id = conn_->last_insert_id();
  internal::insert_samples(*conn_, "floor_samples", "floor_id", id, samples);
  t.commit();
  return id;
}

std::vector<FloorRow> Store::floors(Id run_id) const {
  if (!has_v2_tables_) return {};
  auto s = conn_->prepare(
      fmt::format("SELECT {} FROM floors WHERE run_id = ?1 ORDER BY kind = 'read', n, k, bytes",
                  floor_cols(has_v4_columns_)));
  s.bind(1, run_id);
  std::vector<FloorRow> out;
  while (s.step()) out.push_back(read_floor_row(s));
  return out;
}

std::vector<double> Store::floor_samples(Id floor) const {
  if (!has_v2_tables_) return {};
  return internal::read_samples(
      *conn_, "SELECT us FROM floor_samples WHERE floor_id = ?1 ORDER BY seq", floor);
}

std::optional<FloorRow> Store::launch_floor(Id run_id) const {
  if (!has_v2_tables_) return std::nullopt;
  auto s = conn_->prepare(fmt::format("SELECT {} FROM floors WHERE run_id = ?1 AND kind = 'launch'",
                                      floor_cols(has_v4_columns_)));
  s.bind(1, run_id);
  if (!s.step()) return std::nullopt;
  return read_floor_row(s);
}

std::optional<FloorRow> Store::read_floor(Id run_id, std::int64_t n, std::int64_t k,
                                          std::int64_t bytes) const {
  if (!has_v2_tables_) return std::nullopt;
  auto s = conn_->prepare(fmt::format(
      "SELECT {} FROM floors WHERE run_id = ?1 AND kind = 'read' AND n = ?2 AND k = ?3 AND "
      "bytes = ?4",
      floor_cols(has_v4_columns_)));
  s.bind_all(run_id, n, k, bytes);
  if (!s.step()) return std::nullopt;
  return read_floor_row(s);
}

}  // namespace r4::db
