// r4::db::Store: the tuner's SQLite database (schema in db/schema.cpp, documented in docs/DB.md).
//
// Writes: every insert is its own transaction, so a sweep killed with SIGKILL loses at most the
// row in flight (WAL, synchronous=NORMAL: durable against a process crash; a power cut may lose
// the last commits but never corrupts). Reads: every row read back is re-validated (config ranges,
// positive sizes) and winners additionally go through the pluggable ConfigValidator, so a table
// that a newer kernel module would reject never reaches emit silently.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "db/rows.hpp"
#include "db/schema.hpp"
#include "db/sqlite.hpp"

namespace r4::db {

// A row read back that fails validation (OnInvalid::reject).
class InvalidRow : public Error {
 public:
  using Error::Error;
};
// An unknown run id / uuid, or "latest" with no finished run.
class NotFound : public Error {
 public:
  using Error::Error;
};

// The arch-dependent is_valid hook; the kernels module installs the real one. Default: accept.
using ConfigValidator = std::function<bool(const KernelConfigRow&)>;

enum class OnInvalid { reject, flag };

// The range check every config read back or written goes through, whatever the validator says:
// WV, SK, MB, NPW in 1..64, NT in {0, 1}, a known generation (0 mma_sync, 1 sm90a), ST = 0 in
// generation 0 and in 1..64 in generation 1. Returns an empty string when fine, else the reason.
[[nodiscard]] std::string config_range_problem(const Config& c);

// sha256 over the four provenance fields, length-prefixed so no two inputs collide by
// concatenation.
[[nodiscard]] std::string compile_key(std::string_view source_hash, std::string_view arch,
                                      std::string_view options, std::string_view compiler_version);

// The current time as ISO 8601 UTC, second resolution ("2026-11-30T01:02:03Z").
[[nodiscard]] std::string utc_now();

struct MergeResult {
  int runs_imported = 0;
  int runs_skipped = 0;  // already present (same uuid)
};

class Store {
 public:
  // Opens (creating if missing) and migrates to kSchemaVersion. Throws SchemaError for a file
  // that is newer-incompatible or not an r4tune database, Error for anything SQLite refuses.
  [[nodiscard]] static Store open(const std::string& path);
  // Opens an existing database without writing anything (no migration, no journal-mode change).
  [[nodiscard]] static Store open_read_only(const std::string& path);

  [[nodiscard]] const std::string& path() const { return conn_->path(); }
  [[nodiscard]] bool read_only() const { return conn_->mode() == OpenMode::read_only; }
  [[nodiscard]] SchemaVersion schema_version() const { return read_schema_version(*conn_); }
  [[nodiscard]] const Connection& connection() const { return *conn_; }

  void set_config_validator(ConfigValidator v) { validator_ = std::move(v); }

  // ---- writes (each one transaction) ----
  // Returns the existing row's id when a device with the same identity is stored.
  Id upsert_device(const DeviceRow& d);
  // Fills uuid / started_at when empty, forces status = running unless given otherwise.
  Id begin_run(const RunRow& r);
  // Sets status (complete, partial or failed) and finished_at (now when empty).
  void finish_run(Id run, RunStatus status = RunStatus::complete,
                  const std::string& finished_at = {});
  // A run that stopped early but whose rows are good (killed, time cap). Appends `note`.
  void mark_partial(Id run, const std::string& note = {});
  [[nodiscard]] std::optional<CompileRow> find_compile(const std::string& cache_key) const;
  // Whether a compile is stored under `cache_key` (without reading its binary).
  [[nodiscard]] bool has_compile(const std::string& cache_key) const;
  // Inserts, or returns the id of the row with the same cache_key (the cache's first entry wins).
  // With a run, also records that the run used it (link_compile).
  Id insert_compile(const CompileRow& c, std::optional<Id> run = std::nullopt);
  // Records that `run` used compile `compile` (a cache hit). Idempotent.
  void link_compile(Id run, Id compile);
  // The same for many, in one transaction (a warm sweep's 2,480 cache hits).
  void link_compiles(Id run, const std::vector<Id>& compiles);
  Id insert_check(const CheckRow& c);
  // The row and its samples, in one transaction.
  Id insert_measurement(const MeasurementRow& m, std::span<const double> samples = {});
  Id insert_baseline(const BaselineRow& b, std::span<const double> samples = {});
  // Replaces an earlier winner for the same (run, kernel, dtype, N, K, band).
  Id insert_winner(const WinnerRow& w);
  // Schema v2. The row and its samples in one transaction. Throws InvalidRow, writing nothing,
  // for a bad row (a non-positive or non-finite time, an unknown enum, sizes that do not fit the
  // kind or path, an unknown run, a second row for the same key); store_floors.cpp and
  // store_steps.cpp list the checks.
  Id insert_floor(const FloorRow& f, std::span<const double> samples = {});
  Id insert_step(const StepRow& s, std::span<const double> samples = {});
  void set_shape_name(Id run, std::int64_t n, std::int64_t k, const std::string& name);
  // Schema v4 (store_gpus.cpp). The same GPU (device, host, ordinal, PCI bus id) returns the
  // existing row's id.
  Id upsert_gpu(const GpuRow& g);
  // Adds `r` to the run's row for its GPU: the rank is replaced, the ceiling kept from the first
  // time one was given, races and seconds summed (a --resume adds its own).
  void record_run_gpu(const RunGpuRow& r);
  // The processes (MPI ranks) of the invocation that drives the run now.
  void set_run_ranks(Id run, int ranks);

  // ---- queries ----
  [[nodiscard]] std::vector<RunRow> list_runs() const;
  // "latest" (the most recently started complete or partial run), a numeric id, or a uuid (or a
  // unique prefix of one, at least 4 characters; an all-digit reference that is no run's id is
  // tried as a prefix too). Throws NotFound.
  [[nodiscard]] RunRow resolve_run(const std::string& ref) const;
  [[nodiscard]] RunRow run(Id id) const;
  [[nodiscard]] std::optional<DeviceRow> device(Id id) const;
  [[nodiscard]] std::optional<DeviceRow> run_device(const RunRow& r) const;
  [[nodiscard]] RunCounts counts(Id run) const;
  // Ordered by kernel, dtype, n, k, band_limit.
  [[nodiscard]] std::vector<WinnerRow> winners(Id run, OnInvalid on = OnInvalid::reject) const;
  // Ordered by kernel, dtype, n, k, m, then median (failed rows last).
  [[nodiscard]] std::vector<MeasurementRow> measurements(Id run) const;
  [[nodiscard]] std::vector<double> samples(Id measurement) const;
  [[nodiscard]] std::vector<BaselineRow> baselines(Id run) const;
  [[nodiscard]] std::vector<double> baseline_samples(Id baseline) const;
  [[nodiscard]] std::vector<CheckRow> checks(Id run) const;
  // Schema v2; empty on an older file opened read-only (it has no such tables). Floors ordered by
  // kind (launch first), n, k, bytes; steps by name, m, then path in kStepPaths order.
  [[nodiscard]] std::vector<FloorRow> floors(Id run) const;
  [[nodiscard]] std::vector<double> floor_samples(Id floor) const;
  [[nodiscard]] std::optional<FloorRow> launch_floor(Id run) const;
  // The run's read floor streaming exactly `bytes` for (n, k); for a w4 shape pass
  // w4_weight_bytes(n, k).
  [[nodiscard]] std::optional<FloorRow> read_floor(Id run, std::int64_t n, std::int64_t k,
                                                   std::int64_t bytes) const;
  [[nodiscard]] std::vector<StepRow> steps(Id run) const;
  [[nodiscard]] std::vector<double> step_samples(Id step) const;
  // Whether this file has the v2 tables (false only for an older file opened read-only).
  [[nodiscard]] bool has_floor_tables() const { return has_v2_tables_; }
  // Whether its configs carry the v3 generation and ST columns (false only for an older file
  // opened read-only, whose configs all read as generation mma_sync, ST 0).
  [[nodiscard]] bool has_generation_columns() const { return has_v3_columns_; }
  // Schema v4; none / empty on an older file opened read-only. run_gpus in GPU id order.
  [[nodiscard]] std::optional<GpuRow> gpu(Id id) const;
  [[nodiscard]] std::vector<RunGpuRow> run_gpus(Id run) const;
  // Whether this file has the v4 tables and columns (false only for an older file opened
  // read-only: its rows read with no GPU).
  [[nodiscard]] bool has_gpu_columns() const { return has_v4_columns_; }
  // Compiles this run linked, or that its checks or measurements refer to.
  [[nodiscard]] std::vector<CompileRow> compiles_for_run(Id run, bool with_binaries = false) const;
  // In the order they were named (the spec's order).
  [[nodiscard]] std::vector<ShapeNameRow> shape_names(Id run) const;
  // The name given to (n, k) in this run, or "NxK".
  [[nodiscard]] std::string shape_name(Id run, std::int64_t n, std::int64_t k) const;
  // "ok" when PRAGMA integrity_check passes, else its report.
  [[nodiscard]] std::string integrity_check() const;

  // ---- whole-database operations ----
  // Imports every run of `other_path` whose uuid is not here, with its device, compiles (deduped
  // by cache key), checks, measurements, samples, baselines, winners, shape names, floors and
  // steps (with their samples), and the GPUs that took them (every row keeps its GPU: device,
  // host, ordinal), in one transaction. `other_path` is opened read-only and must be
  // readable by this build (an older v1 file is: it brings no floors or steps).
  MergeResult merge(const std::string& other_path);
  // One CSV row per measurement of every run, with full provenance and the run's read floor for
  // the shape (floor_us, x_floor = median / floor). Throws Error on I/O failure.
  void export_csv(const std::string& path) const;

 private:
  [[nodiscard]] bool has_run_with_uuid_prefix(const std::string& prefix) const;
  explicit Store(std::unique_ptr<Connection> c);
  void validate(const KernelConfigRow& row, const char* table, Id id) const;
  void require_run(Id run, const char* what) const;
  // The select-list text of a config's gen and st columns of `table_alias` ("" or "m."): the
  // columns themselves, or the constants an older file's rows all have.
  [[nodiscard]] std::string gen_st_cols(const char* table_alias = "") const;
  std::unique_ptr<Connection> conn_;
  ConfigValidator validator_;
  bool has_v2_tables_ = true;
  bool has_v3_columns_ = true;
  bool has_v4_columns_ = true;
};

}  // namespace r4::db
