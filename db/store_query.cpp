// Store: the read path. Every row read back is re-validated before it leaves the store.
#include <algorithm>

#include <fmt/core.h>

#include "db/store.hpp"
#include "db/store_internal.hpp"

namespace r4::db {

namespace {

// `ranks` is last, and 1 on a file from before schema v3 (read-only opens).
std::string run_cols(bool v3) {
  return fmt::format(
      "id, uuid, spec_name, spec_text, git_commit, r4tune_version, host, device_id, started_at, "
      "coalesce(finished_at, ''), status, notes, {}",
      v3 ? "ranks" : "1");
}

RunRow read_run(const Statement& s) {
  RunRow r;
  r.id = s.i64(0);
  r.uuid = s.text(1);
  r.spec_name = s.text(2);
  r.spec_text = s.text(3);
  r.git_commit = s.text(4);
  r.r4tune_version = s.text(5);
  r.host = s.text(6);
  r.device_id = s.opt_i64(7);
  r.started_at = s.text(8);
  r.finished_at = s.text(9);
  r.status = parse_run_status(s.text(10));
  r.notes = s.text(11);
  r.ranks = s.i32(12);
  return r;
}

// The knobs at columns first..first + 4 and the generation's name and ST at gen_col and
// gen_col + 1 (Store::gen_st_cols). An unknown generation name reads as generation -1, which
// config_range_problem reports; `gen_problem` names it.
Config read_config(const Statement& s, int first, int gen_col) {
  Config c{s.i32(first), s.i32(first + 1), s.i32(first + 2), s.i32(first + 3), s.i32(first + 4)};
  c.gen = parse_generation(s.text(gen_col)).value_or(-1);
  c.st = s.i32(gen_col + 1);
  return c;
}

std::string gen_problem(const Statement& s, int gen_col) {
  const std::string name = s.text(gen_col);
  if (parse_generation(name)) return {};
  return fmt::format("unknown generation '{}' (known: mma_sync, sm90a)", name);
}

}  // namespace

void Store::validate(const KernelConfigRow& row, const char* table, Id id) const {
  std::string problem = config_range_problem(row.config);
  if (problem.empty() && (row.n <= 0 || row.k <= 0 || row.m <= 0))
    problem = fmt::format("non-positive size N={} K={} M={}", row.n, row.k, row.m);
  if (problem.empty() && validator_ && !validator_(row))
    problem = fmt::format("config {} is not valid for {} on {}", to_string(row.config), row.kernel,
                          row.arch.empty() ? "an unknown arch" : row.arch);
  if (!problem.empty())
    throw InvalidRow(fmt::format("{} row {} ({} {} N={} K={} M={}) in '{}': {}", table, id,
                                 row.kernel, row.dtype, row.n, row.k, row.m, path(), problem));
}

std::vector<RunRow> Store::list_runs() const {
  auto s = conn_->prepare(
      fmt::format("SELECT {} FROM runs ORDER BY started_at, id", run_cols(has_v4_columns_)));
  std::vector<RunRow> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

RunRow Store::run(Id id) const {
  auto s =
      conn_->prepare(fmt::format("SELECT {} FROM runs WHERE id = ?1", run_cols(has_v4_columns_)));
  s.bind(1, id);
  if (!s.step()) throw NotFound(fmt::format("no run {} in '{}'", id, path()));
  return read_run(s);
}

bool Store::has_run_with_uuid_prefix(const std::string& prefix) const {
  auto s = conn_->prepare("SELECT 1 FROM runs WHERE substr(uuid, 1, length(?1)) = ?1 LIMIT 1");
  s.bind(1, prefix);
  return s.step();
}

RunRow Store::resolve_run(const std::string& ref) const {
  if (ref.empty()) throw NotFound("empty run reference");
  if (ref == "latest") {
    auto s =
        conn_->prepare(fmt::format("SELECT {} FROM runs WHERE status IN ('complete', 'partial') "
                                   "ORDER BY started_at DESC, id DESC LIMIT 1",
                                   run_cols(has_v4_columns_)));
    if (!s.step())
      throw NotFound(fmt::format("'{}' has no complete or partial run to call latest", path()));
    return read_run(s);
  }
  // All digits: an id, or else a uuid prefix (a uuid's first 8 hex digits are all decimal one time
  // in 43: the ASan CI run of 2026-12-01 failed Store.RunLifecycleAndResolve on '61245359').
  const bool digits =
      std::all_of(ref.begin(), ref.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && ref.size() < 19) {
    try {
      return run(std::stoll(ref));
    } catch (const NotFound&) {
      if (ref.size() < 4 || !has_run_with_uuid_prefix(ref)) throw;
    }
  }
  if (ref.size() < 4)
    throw NotFound(
        fmt::format("run '{}': give an id, 'latest' or at least 4 uuid characters", ref));
  auto s = conn_->prepare(
      fmt::format("SELECT {} FROM runs WHERE substr(uuid, 1, length(?1)) = ?1 ORDER BY id",
                  run_cols(has_v4_columns_)));
  s.bind(1, ref);
  std::vector<RunRow> found;
  while (s.step()) found.push_back(read_run(s));
  if (found.empty()) throw NotFound(fmt::format("no run '{}' in '{}'", ref, path()));
  if (found.size() > 1)
    throw NotFound(
        fmt::format("run '{}' is ambiguous in '{}' ({} runs match)", ref, path(), found.size()));
  return found.front();
}

std::optional<DeviceRow> Store::device(Id id) const {
  auto s = conn_->prepare(
      "SELECT id, name, vendor, arch, multiprocessors, l2_bytes, llc_bytes, memory_bytes, "
      "sm_clock_mhz, memory_clock_mhz, memory_bus_bits, pci_bus_id, driver_version, "
      "runtime_version, compiler_version, info_json FROM devices WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  DeviceRow d;
  d.id = s.i64(0);
  d.name = s.text(1);
  d.vendor = s.text(2);
  d.arch = s.text(3);
  d.multiprocessors = s.i32(4);
  d.l2_bytes = s.i64(5);
  d.llc_bytes = s.i64(6);
  d.memory_bytes = s.i64(7);
  d.sm_clock_mhz = s.i32(8);
  d.memory_clock_mhz = s.i32(9);
  d.memory_bus_bits = s.i32(10);
  d.pci_bus_id = s.text(11);
  d.driver_version = s.text(12);
  d.runtime_version = s.text(13);
  d.compiler_version = s.text(14);
  d.info_json = s.text(15);
  return d;
}

std::optional<DeviceRow> Store::run_device(const RunRow& r) const {
  if (!r.device_id) return std::nullopt;
  return device(*r.device_id);
}

RunCounts Store::counts(Id run_id) const {
  auto one = [&](const char* sql) {
    auto s = conn_->prepare(sql);
    s.bind(1, run_id);
    s.step();
    return s.i64(0);
  };
  RunCounts c;
  c.measurements = one("SELECT count(*) FROM measurements WHERE run_id = ?1");
  c.measurements_ok = one("SELECT count(*) FROM measurements WHERE run_id = ?1 AND status = 'ok'");
  c.samples =
      one("SELECT count(*) FROM samples JOIN measurements m ON m.id = measurement_id "
          "WHERE m.run_id = ?1");
  c.checks = one("SELECT count(*) FROM checks WHERE run_id = ?1");
  c.checks_failed = one("SELECT count(*) FROM checks WHERE run_id = ?1 AND status <> 'pass'");
  c.baselines = one("SELECT count(*) FROM baselines WHERE run_id = ?1");
  c.winners = one("SELECT count(*) FROM winners WHERE run_id = ?1");
  if (has_v2_tables_) {
    c.floors = one("SELECT count(*) FROM floors WHERE run_id = ?1");
    c.steps = one("SELECT count(*) FROM steps WHERE run_id = ?1");
  }
  c.compiles = one(
      "SELECT count(*) FROM compiles WHERE id IN (SELECT compile_id FROM checks WHERE run_id = ?1 "
      "UNION SELECT compile_id FROM measurements WHERE run_id = ?1 "
      "UNION SELECT compile_id FROM run_compiles WHERE run_id = ?1)");
  return c;
}

std::vector<WinnerRow> Store::winners(Id run_id, OnInvalid on) const {
  const RunRow r = run(run_id);
  const auto dev = run_device(r);
  auto s = conn_->prepare(fmt::format(
      "SELECT id, run_id, measurement_id, kernel, dtype, n, k, band_limit, m_measured, wv, sk, "
      "mb, npw, nt, median_us, speedup_vs_bf16, speedup_vs_fp8, remeasured, {} FROM winners "
      "WHERE run_id = ?1 ORDER BY kernel, dtype, n, k, band_limit",
      gen_st_cols()));
  s.bind(1, run_id);
  std::vector<WinnerRow> out;
  while (s.step()) {
    WinnerRow w;
    w.id = s.i64(0);
    w.run_id = s.i64(1);
    w.measurement_id = s.opt_i64(2);
    w.kernel = s.text(3);
    w.dtype = s.text(4);
    w.n = s.i64(5);
    w.k = s.i64(6);
    w.band_limit = s.i32(7);
    w.m_measured = s.i32(8);
    w.config = read_config(s, 9, 18);
    w.median_us = s.f64(14);
    w.speedup_vs_bf16 = s.opt_f64(15);
    w.speedup_vs_fp8 = s.opt_f64(16);
    w.remeasured = s.i32(17) != 0;
    try {
      if (auto p = gen_problem(s, 18); !p.empty())
        throw InvalidRow(fmt::format("winners row {} ({} {} N={} K={} M={}) in '{}': {}", w.id,
                                     w.kernel, w.dtype, w.n, w.k, w.m_measured, path(), p));
      validate({w.kernel, w.dtype, dev ? dev->arch : "", w.n, w.k, w.m_measured, w.config},
               "winners", w.id);
      if (w.m_measured > w.band_limit)
        throw InvalidRow(fmt::format("winners row {} in '{}': measured at M={} above its band {}",
                                     w.id, path(), w.m_measured, w.band_limit));
    } catch (const InvalidRow& e) {
      if (on == OnInvalid::reject) throw;
      w.problem = e.what();
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<MeasurementRow> Store::measurements(Id run_id) const {
  auto s = conn_->prepare(fmt::format(
      "SELECT id, run_id, compile_id, kernel, dtype, n, k, m, wv, sk, mb, npw, nt, status, "
      "median_us, ci_low_us, ci_high_us, n_samples, gbps, pct_of_ceiling, sm_clock_mhz, "
      "mem_clock_mhz, detail, {}, {} FROM measurements WHERE run_id = ?1 "
      "ORDER BY kernel, dtype, n, k, m, median_us IS NULL, median_us, id",
      gen_st_cols(), has_v4_columns_ ? "gpu_id" : "NULL"));
  s.bind(1, run_id);
  std::vector<MeasurementRow> out;
  while (s.step()) {
    MeasurementRow m;
    m.id = s.i64(0);
    m.run_id = s.i64(1);
    m.compile_id = s.opt_i64(2);
    m.kernel = s.text(3);
    m.dtype = s.text(4);
    m.n = s.i64(5);
    m.k = s.i64(6);
    m.m = s.i32(7);
    m.config = read_config(s, 8, 23);
    m.status = parse_measurement_status(s.text(13));
    m.median_us = s.opt_f64(14);
    m.ci_low_us = s.opt_f64(15);
    m.ci_high_us = s.opt_f64(16);
    m.n_samples = s.i32(17);
    m.gbps = s.opt_f64(18);
    m.pct_of_ceiling = s.opt_f64(19);
    m.sm_clock_mhz = s.opt_i32(20);
    m.mem_clock_mhz = s.opt_i32(21);
    m.detail = s.text(22);
    m.gpu_id = s.opt_i64(25);
    // Range checks only: a measurement of a config the validator now rejects is still history.
    std::string p = gen_problem(s, 23);
    if (p.empty()) p = config_range_problem(m.config);
    if (!p.empty())
      throw InvalidRow(fmt::format("measurements row {} in '{}': {}", m.id, path(), p));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<double> Store::samples(Id measurement) const {
  return internal::read_samples(
      *conn_, "SELECT us FROM samples WHERE measurement_id = ?1 ORDER BY seq", measurement);
}

std::vector<double> Store::baseline_samples(Id baseline) const {
  return internal::read_samples(
      *conn_, "SELECT us FROM baseline_samples WHERE baseline_id = ?1 ORDER BY seq", baseline);
}

std::vector<BaselineRow> Store::baselines(Id run_id) const {
  auto s = conn_->prepare(fmt::format(
      "SELECT id, run_id, kind, n, k, m, median_us, ci_low_us, ci_high_us, n_samples, gbps, algo, "
      "{} FROM baselines WHERE run_id = ?1 ORDER BY kind, n, k, m",
      has_v4_columns_ ? "gpu_id" : "NULL"));
  s.bind(1, run_id);
  std::vector<BaselineRow> out;
  while (s.step()) {
    BaselineRow b;
    b.id = s.i64(0);
    b.run_id = s.i64(1);
    b.kind = parse_baseline_kind(s.text(2));
    b.n = s.i64(3);
    b.k = s.i64(4);
    b.m = s.i32(5);
    b.median_us = s.opt_f64(6);
    b.ci_low_us = s.opt_f64(7);
    b.ci_high_us = s.opt_f64(8);
    b.n_samples = s.i32(9);
    b.gbps = s.opt_f64(10);
    b.algo = s.text(11);
    b.gpu_id = s.opt_i64(12);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<CheckRow> Store::checks(Id run_id) const {
  auto s = conn_->prepare(fmt::format(
      "SELECT id, run_id, compile_id, n, k, m, status, max_error, tolerance, detail, {} "
      "FROM checks WHERE run_id = ?1 ORDER BY id",
      has_v4_columns_ ? "gpu_id" : "NULL"));
  s.bind(1, run_id);
  std::vector<CheckRow> out;
  while (s.step()) {
    CheckRow c;
    c.id = s.i64(0);
    c.run_id = s.i64(1);
    c.compile_id = s.i64(2);
    c.n = s.i64(3);
    c.k = s.i64(4);
    c.m = s.i32(5);
    c.status = parse_check_status(s.text(6));
    c.max_error = s.opt_f64(7);
    c.tolerance = s.opt_f64(8);
    c.detail = s.text(9);
    c.gpu_id = s.opt_i64(10);
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

constexpr const char* kCompileCols =
    "id, cache_key, kernel, wv, sk, mb, npw, nt, arch, source_hash, options, compiler_version, "
    "registers, spill_bytes, stack_bytes, shared_bytes, compile_seconds, status, log";

// Read from "SELECT {kCompileCols}, binary-or-NULL, {gen_st_cols}": gen and st at 20 and 21.
CompileRow read_compile(const Statement& s, bool with_binary) {
  CompileRow c;
  c.id = s.i64(0);
  c.cache_key = s.text(1);
  c.kernel = s.text(2);
  c.config = read_config(s, 3, 20);
  c.arch = s.text(8);
  c.source_hash = s.text(9);
  c.options = s.text(10);
  c.compiler_version = s.text(11);
  c.registers = s.opt_i32(12);
  c.spill_bytes = s.i32(13);
  c.stack_bytes = s.i32(14);
  c.shared_bytes = s.i32(15);
  c.compile_seconds = s.f64(16);
  c.status = parse_compile_status(s.text(17));
  c.log = s.text(18);
  if (with_binary) c.binary = s.blob(19);
  return c;
}

}  // namespace

std::optional<CompileRow> Store::find_compile(const std::string& cache_key) const {
  auto s = conn_->prepare(fmt::format("SELECT {}, binary, {} FROM compiles WHERE cache_key = ?1",
                                      kCompileCols, gen_st_cols()));
  s.bind(1, cache_key);
  if (!s.step()) return std::nullopt;
  CompileRow c = read_compile(s, true);
  std::string p = gen_problem(s, 20);
  if (p.empty()) p = config_range_problem(c.config);
  if (!p.empty()) throw InvalidRow(fmt::format("compiles row {} in '{}': {}", c.id, path(), p));
  return c;
}

bool Store::has_compile(const std::string& cache_key) const {
  auto s = conn_->prepare("SELECT 1 FROM compiles WHERE cache_key = ?1");
  s.bind(1, cache_key);
  return s.step();
}

std::vector<CompileRow> Store::compiles_for_run(Id run_id, bool with_binaries) const {
  auto s = conn_->prepare(fmt::format(
      "SELECT {}, {}, {} FROM compiles WHERE id IN (SELECT compile_id FROM checks WHERE "
      "run_id = ?1 UNION SELECT compile_id FROM measurements WHERE run_id = ?1 "
      "UNION SELECT compile_id FROM run_compiles WHERE run_id = ?1) ORDER BY id",
      kCompileCols, with_binaries ? "binary" : "NULL", gen_st_cols()));
  s.bind(1, run_id);
  std::vector<CompileRow> out;
  while (s.step()) out.push_back(read_compile(s, with_binaries));
  return out;
}

std::vector<ShapeNameRow> Store::shape_names(Id run_id) const {
  auto s =
      conn_->prepare("SELECT run_id, n, k, name FROM shape_names WHERE run_id = ?1 ORDER BY rowid");
  s.bind(1, run_id);
  std::vector<ShapeNameRow> out;
  while (s.step()) out.push_back({s.i64(0), s.i64(1), s.i64(2), s.text(3)});
  return out;
}

std::string Store::shape_name(Id run_id, std::int64_t n, std::int64_t k) const {
  auto s = conn_->prepare("SELECT name FROM shape_names WHERE run_id = ?1 AND n = ?2 AND k = ?3");
  s.bind_all(run_id, n, k);
  if (s.step()) return s.text(0);
  return fmt::format("{}x{}", n, k);
}

std::string Store::integrity_check() const {
  auto s = conn_->prepare("PRAGMA integrity_check");
  std::string out;
  while (s.step()) {
    if (!out.empty()) out += "\n";
    out += s.text(0);
  }
  return out;
}

}  // namespace r4::db
