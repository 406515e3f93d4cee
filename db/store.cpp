// Store: opening, migrating and the write path. Queries live in store_query.cpp, merge and CSV
// export in store_merge.cpp, floors and steps (schema v2) in store_floors.cpp and store_steps.cpp.
#include "db/store.hpp"

#include <chrono>
#include <ctime>
#include <random>
#include <thread>

#include <fmt/core.h>

#include "db/sha256.hpp"
#include "db/store_internal.hpp"

namespace r4::db {

std::string config_range_problem(const Config& c) {
  auto bad = [](const char* name, int v, int most = 64) {
    return fmt::format("{} = {} is outside 1..{}", name, v, most);
  };
  if (c.wv < 1 || c.wv > 64) return bad("WV", c.wv);
  // SK: split-K factors, or the sm90a generation's stream-K block count (kernels/config.hpp
  // kSm90aStreamK, 132).
  if (c.sk < 1 || c.sk > 256) return bad("SK", c.sk, 256);
  if (c.mb < 1 || c.mb > 64) return bad("MB", c.mb);
  if (c.npw < 1 || c.npw > 64) return bad("NPW", c.npw);
  if (c.nt != 0 && c.nt != 1) return fmt::format("NT = {} is not 0 or 1", c.nt);
  if (c.gen == kGenMmaSync) {
    if (c.st != 0) return fmt::format("ST = {} in generation mma_sync, which has no ST", c.st);
  } else if (c.gen == kGenSm90a || c.gen == kGenLdg) {
    if (c.st < 1 || c.st > 64)
      return fmt::format("ST = {} is outside 1..64 ({})", c.st, generation_name(c.gen));
  } else {
    return fmt::format("generation {} is not 0 (mma_sync), 1 (sm90a) or 2 (ldg)", c.gen);
  }
  return {};
}

std::string compile_key(std::string_view source_hash, std::string_view arch,
                        std::string_view options, std::string_view compiler_version) {
  std::string s;
  for (std::string_view f : {source_hash, arch, options, compiler_version})
    s += fmt::format("{}:{};", f.size(), f);
  return sha256_hex(s);
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string random_uuid() {
  std::random_device rd;
  std::uniform_int_distribution<unsigned> byte(0, 255);
  unsigned char b[16];
  for (auto& x : b) x = static_cast<unsigned char>(byte(rd));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

std::string device_fingerprint(const DeviceRow& d) {
  return sha256_hex(fmt::format(
      "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", d.name.size(), d.name, d.vendor, d.arch,
      d.multiprocessors, d.l2_bytes, d.llc_bytes, d.memory_bytes, d.sm_clock_mhz,
      d.memory_clock_mhz, d.memory_bus_bits,
      fmt::format("{}:{}", d.driver_version.size(), d.driver_version),
      fmt::format("{}:{}|{}", d.runtime_version.size(), d.runtime_version, d.compiler_version)));
}

void require_config(const Config& c, const char* what) {
  if (auto p = config_range_problem(c); !p.empty())
    throw InvalidRow(fmt::format("refusing to store {}: config {}", what, p));
}

}  // namespace

Store::Store(std::unique_ptr<Connection> c)
    : conn_(std::move(c)),
      has_v2_tables_(has_table(*conn_, "floors") && has_table(*conn_, "steps")),
      has_v3_columns_(has_column(*conn_, "compiles", "gen") &&
                      has_column(*conn_, "measurements", "gen") &&
                      has_column(*conn_, "winners", "gen")),
      has_v4_columns_(has_table(*conn_, "gpus")) {}

std::string Store::gen_st_cols(const char* alias) const {
  if (has_v3_columns_) return fmt::format("{0}gen, {0}st", alias);
  return "'mma_sync', 0";
}

Store Store::open(const std::string& path) {
  auto c = std::make_unique<Connection>(path, OpenMode::read_write_create);
  // Refuse a foreign or too-new file before anything below writes to it (journal_mode does).
  (void)read_consistent_version(*c, migrations());
  // WAL: readers (a report) never block the sweep's writer and a kill never tears a page.
  // synchronous=NORMAL in WAL is durable against process crashes (the kill -9 test), not
  // against power loss, which costs at most the last commits and never the file.
  // Switching a new file to WAL needs it to itself for a moment, and SQLite does not wait in the
  // busy handler for that: several processes opening a new file at once retry here (seen with six
  // at once: "database is locked (running: PRAGMA journal_mode = WAL)").
  for (const auto until =
           std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
       ;) {
    try {
      c->exec("PRAGMA journal_mode = WAL");
      break;
    } catch (const BusyError&) {
      if (std::chrono::steady_clock::now() > until) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  c->exec("PRAGMA synchronous = NORMAL");
  c->exec("PRAGMA foreign_keys = ON");
  migrate(*c, migrations());
  return Store(std::move(c));
}

Store Store::open_read_only(const std::string& path) {
  auto c = std::make_unique<Connection>(path, OpenMode::read_only);
  c->exec("PRAGMA foreign_keys = ON");
  check_readable(read_schema_version(*c), kSchemaVersion, kOldestReadableVersion, path);
  return Store(std::move(c));
}

Id Store::upsert_device(const DeviceRow& d) {
  if (d.name.empty() || d.arch.empty() || d.multiprocessors <= 0)
    throw InvalidRow("refusing to store a device without name, arch or multiprocessor count");
  const std::string fp = device_fingerprint(d);
  Transaction t(*conn_);
  auto find = conn_->prepare("SELECT id FROM devices WHERE fingerprint = ?1");
  find.bind(1, fp);
  if (find.step()) return find.i64(0);  // rolls back the (empty) transaction
  conn_
      ->prepare(
          "INSERT INTO devices(fingerprint, name, vendor, arch, multiprocessors, l2_bytes, "
          "llc_bytes, memory_bytes, sm_clock_mhz, memory_clock_mhz, memory_bus_bits, pci_bus_id, "
          "driver_version, runtime_version, compiler_version, info_json) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)")
      .bind_all(fp, d.name, d.vendor, d.arch, d.multiprocessors, d.l2_bytes, d.llc_bytes,
                d.memory_bytes, d.sm_clock_mhz, d.memory_clock_mhz, d.memory_bus_bits, d.pci_bus_id,
                d.driver_version, d.runtime_version, d.compiler_version, d.info_json)
      .run();
  const Id id = conn_->last_insert_id();
  t.commit();
  return id;
}

Id Store::begin_run(const RunRow& r) {
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO runs(uuid, spec_name, spec_text, git_commit, r4tune_version, host, "
          "device_id, started_at, finished_at, status, notes, ranks) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)")
      .bind_all(r.uuid.empty() ? random_uuid() : r.uuid, r.spec_name, r.spec_text, r.git_commit,
                r.r4tune_version, r.host, r.device_id,
                r.started_at.empty() ? utc_now() : r.started_at,
                r.finished_at.empty() ? std::optional<std::string>() : r.finished_at,
                to_string(r.status), r.notes, std::max(1, r.ranks))
      .run();
  const Id id = conn_->last_insert_id();
  t.commit();
  return id;
}

void Store::finish_run(Id run_id, RunStatus status, const std::string& finished_at) {
  if (status == RunStatus::running) throw Error("finish_run: the final status cannot be 'running'");
  Transaction t(*conn_);
  auto s = conn_->prepare("UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1");
  s.bind_all(run_id, to_string(status), finished_at.empty() ? utc_now() : finished_at).run();
  if (conn_->changes() == 0) throw NotFound(fmt::format("no run {}", run_id));
  t.commit();
}

void Store::mark_partial(Id run_id, const std::string& note) {
  Transaction t(*conn_);
  auto s = conn_->prepare(
      "UPDATE runs SET status = 'partial', finished_at = coalesce(finished_at, ?2), "
      "notes = CASE WHEN ?3 = '' THEN notes WHEN notes = '' THEN ?3 "
      "ELSE notes || char(10) || ?3 END WHERE id = ?1");
  s.bind_all(run_id, utc_now(), note).run();
  if (conn_->changes() == 0) throw NotFound(fmt::format("no run {}", run_id));
  t.commit();
}

Id Store::insert_compile(const CompileRow& c, std::optional<Id> run_id) {
  require_config(c.config, "a compile");
  if (c.cache_key.empty()) throw InvalidRow("refusing to store a compile without a cache key");
  Transaction t(*conn_);
  auto find = conn_->prepare("SELECT id FROM compiles WHERE cache_key = ?1");
  find.bind(1, c.cache_key);
  if (find.step()) {
    const Id id = find.i64(0);
    if (run_id) link_compile(*run_id, id);
    t.commit();
    return id;
  }
  auto s = conn_->prepare(
      "INSERT INTO compiles(cache_key, kernel, wv, sk, mb, npw, nt, arch, source_hash, options, "
      "compiler_version, registers, spill_bytes, stack_bytes, shared_bytes, compile_seconds, "
      "status, log, gen, st, binary) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
      "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)");
  s.bind_all(c.cache_key, c.kernel, c.config.wv, c.config.sk, c.config.mb, c.config.npw,
             c.config.nt, c.arch, c.source_hash, c.options, c.compiler_version, c.registers,
             c.spill_bytes, c.stack_bytes, c.shared_bytes, c.compile_seconds, to_string(c.status),
             c.log, generation_name(c.config.gen), c.config.st);
  if (c.binary.empty())
    s.bind(21, std::nullopt);
  else
    s.bind(21, std::span<const std::byte>(c.binary));
  s.run();
  const Id id = conn_->last_insert_id();
  if (run_id) link_compile(*run_id, id);
  t.commit();
  return id;
}

void Store::link_compiles(Id run_id, const std::vector<Id>& compile_ids) {
  Transaction t(*conn_);
  for (const Id c : compile_ids) link_compile(run_id, c);
  t.commit();
}

void Store::link_compile(Id run_id, Id compile_id) {
  Transaction t(*conn_);
  conn_->prepare("INSERT OR IGNORE INTO run_compiles(run_id, compile_id) VALUES (?1, ?2)")
      .bind_all(run_id, compile_id)
      .run();
  t.commit();
}

Id Store::insert_check(const CheckRow& c) {
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO checks(run_id, compile_id, n, k, m, status, max_error, tolerance, detail, "
          "gpu_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
      .bind_all(c.run_id, c.compile_id, c.n, c.k, c.m, to_string(c.status), c.max_error,
                c.tolerance, c.detail, c.gpu_id)
      .run();
  const Id id = conn_->last_insert_id();
  t.commit();
  return id;
}

Id Store::insert_measurement(const MeasurementRow& m, std::span<const double> samples) {
  require_config(m.config, "a measurement");
  const int n_samples = samples.empty() ? m.n_samples : static_cast<int>(samples.size());
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO measurements(run_id, compile_id, kernel, dtype, n, k, m, wv, sk, mb, npw, "
          "nt, status, median_us, ci_low_us, ci_high_us, n_samples, gbps, pct_of_ceiling, "
          "sm_clock_mhz, mem_clock_mhz, detail, gen, st, gpu_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
          "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, "
          "?25)")
      .bind_all(m.run_id, m.compile_id, m.kernel, m.dtype, m.n, m.k, m.m, m.config.wv, m.config.sk,
                m.config.mb, m.config.npw, m.config.nt, to_string(m.status), m.median_us,
                m.ci_low_us, m.ci_high_us, n_samples, m.gbps, m.pct_of_ceiling, m.sm_clock_mhz,
                m.mem_clock_mhz, m.detail, generation_name(m.config.gen), m.config.st, m.gpu_id)
      .run();
  const Id id = conn_->last_insert_id();
  internal::insert_samples(*conn_, "samples", "measurement_id", id, samples);
  t.commit();
  return id;
}

Id Store::insert_baseline(const BaselineRow& b, std::span<const double> samples) {
  const int n_samples = samples.empty() ? b.n_samples : static_cast<int>(samples.size());
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO baselines(run_id, kind, n, k, m, median_us, ci_low_us, ci_high_us, "
          "n_samples, gbps, algo, gpu_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
          "?12)")
      .bind_all(b.run_id, to_string(b.kind), b.n, b.k, b.m, b.median_us, b.ci_low_us, b.ci_high_us,
                n_samples, b.gbps, b.algo, b.gpu_id)
      .run();
  const Id id = conn_->last_insert_id();
  internal::insert_samples(*conn_, "baseline_samples", "baseline_id", id, samples);
  t.commit();
  return id;
}

Id Store::insert_winner(const WinnerRow& w) {
  require_config(w.config, "a winner");
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO winners(run_id, measurement_id, kernel, dtype, n, k, band_limit, "
          "m_measured, wv, sk, mb, npw, nt, median_us, speedup_vs_bf16, speedup_vs_fp8, "
          "remeasured, gen, st) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
          "?14, ?15, ?16, ?17, ?18, ?19) ON CONFLICT(run_id, kernel, dtype, n, k, band_limit) DO "
          "UPDATE SET measurement_id = excluded.measurement_id, m_measured = excluded.m_measured, "
          "wv = excluded.wv, sk = excluded.sk, mb = excluded.mb, npw = excluded.npw, "
          "nt = excluded.nt, gen = excluded.gen, st = excluded.st, median_us = excluded.median_us, "
          "speedup_vs_bf16 = excluded.speedup_vs_bf16, speedup_vs_fp8 = excluded.speedup_vs_fp8, "
          "remeasured = excluded.remeasured")
      .bind_all(w.run_id, w.measurement_id, w.kernel, w.dtype, w.n, w.k, w.band_limit, w.m_measured,
                w.config.wv, w.config.sk, w.config.mb, w.config.npw, w.config.nt, w.median_us,
                w.speedup_vs_bf16, w.speedup_vs_fp8, w.remeasured ? 1 : 0,
                generation_name(w.config.gen), w.config.st)
      .run();
  auto s = conn_->prepare(
      "SELECT id FROM winners WHERE run_id = ?1 AND kernel = ?2 AND dtype = ?3 AND n = ?4 AND "
      "k = ?5 AND band_limit = ?6");
  s.bind_all(w.run_id, w.kernel, w.dtype, w.n, w.k, w.band_limit);
  s.step();
  const Id id = s.i64(0);
  t.commit();
  return id;
}

void Store::require_run(Id run_id, const char* what) const {
  auto s = conn_->prepare("SELECT 1 FROM runs WHERE id = ?1");
  s.bind(1, run_id);
  if (!s.step())
    throw InvalidRow(fmt::format("refusing to store {}: no run {} in '{}'", what, run_id, path()));
}

void Store::set_shape_name(Id run_id, std::int64_t n, std::int64_t k, const std::string& name) {
  Transaction t(*conn_);
  conn_
      ->prepare(
          "INSERT INTO shape_names(run_id, n, k, name) VALUES (?1, ?2, ?3, ?4) "
          "ON CONFLICT(run_id, n, k) DO UPDATE SET name = excluded.name")
      .bind_all(run_id, n, k, name)
      .run();
  t.commit();
}

}  // namespace r4::db
