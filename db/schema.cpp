#include "db/schema.hpp"

#include <fmt/core.h>

namespace r4::db {

namespace {

// Version 1. Conventions: sizes are positive integers, times are microseconds (REAL), dates are
// ISO 8601 UTC text ("2026-11-29T14:03:00Z"), enums are lower-case text with CHECK constraints,
// and a config is five integer columns next to its stable kernel name (STYLE.md rule 6).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);

-- One row per distinct device identity. `fingerprint` hashes every identity column (name, arch,
-- multiprocessor count, caches, memory, clocks, driver / runtime / compiler versions), so a
-- driver update is a new device row and results keyed on the old one are not silently reused.
CREATE TABLE devices (
  id               INTEGER PRIMARY KEY,
  fingerprint      TEXT NOT NULL UNIQUE,
  name             TEXT NOT NULL,
  vendor           TEXT NOT NULL CHECK (vendor IN ('nvidia', 'amd')),
  arch             TEXT NOT NULL CHECK (arch <> ''),
  multiprocessors  INTEGER NOT NULL CHECK (multiprocessors > 0),
  l2_bytes         INTEGER NOT NULL CHECK (l2_bytes >= 0),
  llc_bytes        INTEGER NOT NULL CHECK (llc_bytes >= 0),
  memory_bytes     INTEGER NOT NULL CHECK (memory_bytes >= 0),
  sm_clock_mhz     INTEGER NOT NULL CHECK (sm_clock_mhz >= 0),
  memory_clock_mhz INTEGER NOT NULL CHECK (memory_clock_mhz >= 0),
  memory_bus_bits  INTEGER NOT NULL CHECK (memory_bus_bits >= 0),
  pci_bus_id       TEXT NOT NULL DEFAULT '',
  driver_version   TEXT NOT NULL,
  runtime_version  TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  info_json        TEXT NOT NULL DEFAULT '{}'
);

-- One sweep. `uuid` is the run's identity across databases (merge dedupes on it); `id` is local.
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE CHECK (length(uuid) >= 8),
  spec_name      TEXT NOT NULL,
  spec_text      TEXT NOT NULL,
  git_commit     TEXT NOT NULL,
  r4tune_version TEXT NOT NULL,
  host           TEXT NOT NULL,
  device_id      INTEGER REFERENCES devices(id),
  started_at     TEXT NOT NULL,
  finished_at    TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running', 'complete', 'partial', 'failed')),
  notes          TEXT NOT NULL DEFAULT ''
);

-- The compile cache, shared by all runs. cache_key = sha256(source hash, arch, options, compiler
-- version); the config reaches the compiler as -D options, so it is part of the key.
CREATE TABLE compiles (
  id               INTEGER PRIMARY KEY,
  cache_key        TEXT NOT NULL UNIQUE,
  kernel           TEXT NOT NULL CHECK (kernel <> ''),
  wv               INTEGER NOT NULL CHECK (wv BETWEEN 1 AND 64),
  sk               INTEGER NOT NULL CHECK (sk BETWEEN 1 AND 64),
  mb               INTEGER NOT NULL CHECK (mb BETWEEN 1 AND 64),
  npw              INTEGER NOT NULL CHECK (npw BETWEEN 1 AND 64),
  nt               INTEGER NOT NULL CHECK (nt IN (0, 1)),
  arch             TEXT NOT NULL,
  source_hash      TEXT NOT NULL,
  options          TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  registers        INTEGER,
  spill_bytes      INTEGER NOT NULL DEFAULT 0,
  stack_bytes      INTEGER NOT NULL DEFAULT 0,
  shared_bytes     INTEGER NOT NULL DEFAULT 0,
  compile_seconds  REAL NOT NULL DEFAULT 0,
  status           TEXT NOT NULL
                   CHECK (status IN ('ok', 'compile_error', 'spills', 'over_resources')),
  log              TEXT NOT NULL DEFAULT '',
  binary           BLOB
);
CREATE INDEX compiles_kernel ON compiles(kernel, arch);

-- Which compiles (fresh or cache hits, pruned ones included) a run planned, so a report can say
-- how many configs a run pruned even though the cache is shared.
CREATE TABLE run_compiles (
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compile_id INTEGER NOT NULL REFERENCES compiles(id),
  PRIMARY KEY (run_id, compile_id)
) WITHOUT ROWID;

-- Correctness checks of one compiled config on one shape, before it is ever timed.
CREATE TABLE checks (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compile_id INTEGER NOT NULL REFERENCES compiles(id),
  n          INTEGER NOT NULL CHECK (n > 0),
  k          INTEGER NOT NULL CHECK (k > 0),
  m          INTEGER NOT NULL CHECK (m > 0),
  status     TEXT NOT NULL
             CHECK (status IN ('pass', 'wrong_result', 'fault', 'timeout', 'not_run')),
  max_error  REAL,
  tolerance  REAL,
  detail     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX checks_run ON checks(run_id);

-- One timed (kernel, dtype, shape, M, config). Provenance: run -> device (arch, SMs, driver,
-- runtime, compiler) and compile -> (source hash, options, compiler version).
CREATE TABLE measurements (
  id             INTEGER PRIMARY KEY,
  run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compile_id     INTEGER REFERENCES compiles(id),
  kernel         TEXT NOT NULL CHECK (kernel <> ''),
  dtype          TEXT NOT NULL CHECK (dtype <> ''),
  n              INTEGER NOT NULL CHECK (n > 0),
  k              INTEGER NOT NULL CHECK (k > 0),
  m              INTEGER NOT NULL CHECK (m > 0),
  wv             INTEGER NOT NULL CHECK (wv BETWEEN 1 AND 64),
  sk             INTEGER NOT NULL CHECK (sk BETWEEN 1 AND 64),
  mb             INTEGER NOT NULL CHECK (mb BETWEEN 1 AND 64),
  npw            INTEGER NOT NULL CHECK (npw BETWEEN 1 AND 64),
  nt             INTEGER NOT NULL CHECK (nt IN (0, 1)),
  status         TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'raced_out')),
  median_us      REAL CHECK (median_us IS NULL OR median_us > 0),
  ci_low_us      REAL,
  ci_high_us     REAL,
  n_samples      INTEGER NOT NULL DEFAULT 0 CHECK (n_samples >= 0),
  gbps           REAL,
  pct_of_ceiling REAL,
  sm_clock_mhz   INTEGER,
  mem_clock_mhz  INTEGER,
  detail         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX measurements_run ON measurements(run_id, kernel, dtype, n, k, m);

CREATE TABLE samples (
  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
  seq            INTEGER NOT NULL CHECK (seq >= 0),
  us             REAL NOT NULL,
  PRIMARY KEY (measurement_id, seq)
) WITHOUT ROWID;

-- Vendor baselines at each band's top M, and the streaming-read ceiling (n = k = m = 0), all
-- measured in the same run as the candidates so every ratio is a same-run ratio.
CREATE TABLE baselines (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('bf16', 'fp8_block', 'streaming_ceiling')),
  n          INTEGER NOT NULL,
  k          INTEGER NOT NULL,
  m          INTEGER NOT NULL,
  median_us  REAL CHECK (median_us IS NULL OR median_us > 0),
  ci_low_us  REAL,
  ci_high_us REAL,
  n_samples  INTEGER NOT NULL DEFAULT 0 CHECK (n_samples >= 0),
  gbps       REAL,
  algo       TEXT NOT NULL DEFAULT '',
  CHECK ((kind = 'streaming_ceiling' AND n = 0 AND k = 0 AND m = 0)
         OR (kind <> 'streaming_ceiling' AND n > 0 AND k > 0 AND m > 0)),
  UNIQUE (run_id, kind, n, k, m)
);

CREATE TABLE baseline_samples (
  baseline_id INTEGER NOT NULL REFERENCES baselines(id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL CHECK (seq >= 0),
  us          REAL NOT NULL,
  PRIMARY KEY (baseline_id, seq)
) WITHOUT ROWID;

-- The chosen config per (kernel, dtype, shape, M band), what emit turns into tables.
CREATE TABLE winners (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  measurement_id  INTEGER REFERENCES measurements(id),
  kernel          TEXT NOT NULL CHECK (kernel <> ''),
  dtype           TEXT NOT NULL CHECK (dtype <> ''),
  n               INTEGER NOT NULL CHECK (n > 0),
  k               INTEGER NOT NULL CHECK (k > 0),
  band_limit      INTEGER NOT NULL CHECK (band_limit > 0),
  m_measured      INTEGER NOT NULL CHECK (m_measured > 0),
  wv              INTEGER NOT NULL,
  sk              INTEGER NOT NULL,
  mb              INTEGER NOT NULL,
  npw             INTEGER NOT NULL,
  nt              INTEGER NOT NULL,
  median_us       REAL NOT NULL CHECK (median_us > 0),
  speedup_vs_bf16 REAL,
  speedup_vs_fp8  REAL,
  remeasured      INTEGER NOT NULL DEFAULT 0 CHECK (remeasured IN (0, 1)),
  UNIQUE (run_id, kernel, dtype, n, k, band_limit)
);

CREATE TABLE shape_names (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  n      INTEGER NOT NULL CHECK (n > 0),
  k      INTEGER NOT NULL CHECK (k > 0),
  name   TEXT NOT NULL CHECK (name <> ''),
  PRIMARY KEY (run_id, n, k)
);
)sql";

// Version 2 (issue 11): the physical limits every time is held against, and decode steps timed
// as one chain. Only new tables, so a v1 reader can still read a v2 file (compatible version
// stays 1) and this build reads a v1 file read-only, seeing no floors and no steps.
constexpr const char* kSchemaV2 = R"sql(
-- Measured in the same run, on the same device, with the same pool method as the candidates:
-- the launch floor (an empty kernel, graph-replayed; n = k = bytes = 0) and, per shape, the read
-- floor (a kernel that streams exactly `bytes` once with wide loads, launch and tail included).
-- A w4 shape's read floor has bytes = N*K/2 + N*K/32 (the packed weight and its scale dwords).
CREATE TABLE floors (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind       TEXT NOT NULL CHECK (kind IN ('launch', 'read')),
  n          INTEGER NOT NULL,
  k          INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  median_us  REAL NOT NULL CHECK (median_us > 0),
  ci_low_us  REAL,
  ci_high_us REAL,
  n_samples  INTEGER NOT NULL DEFAULT 0 CHECK (n_samples >= 0),
  gbps       REAL,
  detail     TEXT NOT NULL DEFAULT '',
  CHECK ((kind = 'launch' AND n = 0 AND k = 0 AND bytes = 0)
         OR (kind = 'read' AND n > 0 AND k > 0 AND bytes > 0)),
  UNIQUE (run_id, kind, n, k, bytes)
);

CREATE TABLE floor_samples (
  floor_id INTEGER NOT NULL REFERENCES floors(id) ON DELETE CASCADE,
  seq      INTEGER NOT NULL CHECK (seq >= 0),
  us       REAL NOT NULL,
  PRIMARY KEY (floor_id, seq)
) WITHOUT ROWID;

-- A decode step: the spec's [step] chain of shapes at one M, timed as a whole (graph replays over
-- a pool of steps) on one path. `detail` is JSON (db/step_detail.hpp): per chain position the
-- shape, kernel, dtype, generation and config; for a failed step, the reason. A failed step has
-- no time (the CHECK spells out "NULL when failed, else > 0"; a bare `median_us > 0` would let
-- NULL through).
CREATE TABLE steps (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name       TEXT NOT NULL CHECK (name <> ''),
  m          INTEGER NOT NULL CHECK (m BETWEEN 1 AND 64),
  path       TEXT NOT NULL CHECK (path IN ('w4', 'w4_pdl', 'bf16', 'fp8_block', 'read_floor',
                                           'read_floor_pdl')),
  status     TEXT NOT NULL DEFAULT 'ok' CHECK (status IN ('ok', 'failed')),
  median_us  REAL,
  ci_low_us  REAL,
  ci_high_us REAL,
  n_samples  INTEGER NOT NULL DEFAULT 0 CHECK (n_samples >= 0),
  launches   INTEGER NOT NULL DEFAULT 0 CHECK (launches >= 0),
  detail     TEXT NOT NULL DEFAULT '',
  CHECK ((status = 'ok' AND median_us IS NOT NULL AND median_us > 0 AND launches > 0)
         OR (status = 'failed' AND median_us IS NULL)),
  UNIQUE (run_id, name, m, path)
);

CREATE TABLE step_samples (
  step_id INTEGER NOT NULL REFERENCES steps(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL CHECK (seq >= 0),
  us      REAL NOT NULL,
  PRIMARY KEY (step_id, seq)
) WITHOUT ROWID;
)sql";

// Version 3 (issue 12): the kernel generation of every config, and its extra knob. `gen` is the
// generation's name (a database key like the kernel's, STYLE.md rule 6: "mma_sync" for the
// seeds' (WV, SK, MB, NPW, NT) generation, "sm90a" for the bulk-copy / wgmma one), `st` the sm90a
// generation's ring stages (0 for mma_sync; db::config_range_problem checks the pairing). ADD
// COLUMN keeps every row, and the defaults are what every older row is: an mma.sync config.
// Like the other config columns, the winners' carry no CHECK, so a bad row stays readable and is
// reported (OnInvalid::flag) rather than refused. The compatible version becomes 3: a v2 reader
// does not know the columns and would read an sm90a row as the mma.sync config of the same five
// knobs, so it must refuse the file rather than emit a wrong table.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE compiles ADD COLUMN gen TEXT NOT NULL DEFAULT 'mma_sync'
  CHECK (gen IN ('mma_sync', 'sm90a'));
ALTER TABLE compiles ADD COLUMN st INTEGER NOT NULL DEFAULT 0 CHECK (st BETWEEN 0 AND 64);
ALTER TABLE measurements ADD COLUMN gen TEXT NOT NULL DEFAULT 'mma_sync'
  CHECK (gen IN ('mma_sync', 'sm90a'));
ALTER TABLE measurements ADD COLUMN st INTEGER NOT NULL DEFAULT 0 CHECK (st BETWEEN 0 AND 64);
ALTER TABLE winners ADD COLUMN gen TEXT NOT NULL DEFAULT 'mma_sync';
ALTER TABLE winners ADD COLUMN st INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 4 (issue 15): scale-out. One sweep may time on every GPU of a host and on many hosts
// (MPI ranks), so every measured row says which physical GPU took it. `devices` stays the
// identity of a GPU model (eight identical H200s are one devices row); `gpus` is one physical
// GPU: its model, the host, its index there and its PCI bus id. Only new tables and new nullable
// columns, so a v3 reader still reads a v4 file (the compatible version stays 3), and rows
// written before v4 have no GPU (NULL).
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE gpus (
  id         INTEGER PRIMARY KEY,
  device_id  INTEGER NOT NULL REFERENCES devices(id),
  host       TEXT NOT NULL CHECK (host <> ''),
  ordinal    INTEGER NOT NULL CHECK (ordinal >= 0),
  pci_bus_id TEXT NOT NULL DEFAULT '',
  UNIQUE (device_id, host, ordinal, pci_bus_id)
);

-- The GPUs a run timed on: the MPI rank that drove each (0 without MPI), its streaming-read
-- ceiling (the run's `streaming_ceiling` baseline is its first GPU's), and what the dispatcher
-- saw: races taken, seconds busy with them and seconds idle while the run's races went on,
-- summed over the invocations that drove the run (a --resume adds to them).
CREATE TABLE run_gpus (
  run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  gpu_id       INTEGER NOT NULL REFERENCES gpus(id),
  rank         INTEGER NOT NULL DEFAULT 0 CHECK (rank >= 0),
  ceiling_gbps REAL CHECK (ceiling_gbps IS NULL OR ceiling_gbps > 0),
  races        INTEGER NOT NULL DEFAULT 0 CHECK (races >= 0),
  busy_seconds REAL NOT NULL DEFAULT 0 CHECK (busy_seconds >= 0),
  idle_seconds REAL NOT NULL DEFAULT 0 CHECK (idle_seconds >= 0),
  PRIMARY KEY (run_id, gpu_id)
) WITHOUT ROWID;

-- The processes (MPI ranks; 1 without MPI) of the invocation that last drove the run.
ALTER TABLE runs ADD COLUMN ranks INTEGER NOT NULL DEFAULT 1 CHECK (ranks >= 1);
ALTER TABLE checks ADD COLUMN gpu_id INTEGER REFERENCES gpus(id);
ALTER TABLE measurements ADD COLUMN gpu_id INTEGER REFERENCES gpus(id);
ALTER TABLE baselines ADD COLUMN gpu_id INTEGER REFERENCES gpus(id);
ALTER TABLE floors ADD COLUMN gpu_id INTEGER REFERENCES gpus(id);
ALTER TABLE steps ADD COLUMN gpu_id INTEGER REFERENCES gpus(id);
)sql";

// Replaces `from` by `to` in the CREATE text of compiles and measurements (a loosened CHECK: every
// stored row still satisfies it), bumps schema_version, and checks that both tables now carry `to`
// (a hand-edited file is refused with `what`, nothing changed).
void loosen_check(const Connection& c, const char* from, const char* to, const char* what) {
  const int schema_version = [&] {
    auto s = c.prepare("PRAGMA schema_version");
    if (!s.step()) throw Error("PRAGMA schema_version returned no row");
    return s.i32(0);
  }();
  c.exec("PRAGMA writable_schema = ON");
  try {
    auto s = c.prepare(
        "UPDATE sqlite_schema SET sql = replace(sql, ?1, ?2) "
        "WHERE type = 'table' AND name IN ('compiles', 'measurements')");
    s.bind_all(from, to).run();
    c.exec(fmt::format("PRAGMA schema_version = {}", schema_version + 1).c_str());
  } catch (...) {
    c.exec("PRAGMA writable_schema = OFF");
    throw;
  }
  c.exec("PRAGMA writable_schema = OFF");
  auto q = c.prepare(
      "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
      "name IN ('compiles', 'measurements') AND instr(sql, ?1) > 0");
  q.bind(1, to);
  if (!q.step() || q.i32(0) != 2) throw Error(what);
}

// Version 5 (session 6): a third kernel generation, "ldg" (kernels/nv/gemm_w4_ldg.h), whose rows
// the version-3 CHECK (gen IN ('mma_sync', 'sm90a')) of compiles and measurements refuses.
// SQLite cannot alter a CHECK constraint; its documentation gives, for schema changes that do not
// touch what is stored (removing or loosening a CHECK: every existing row still satisfies the
// wider list), the edit of the table's CREATE text in sqlite_schema under PRAGMA writable_schema
// followed by a schema_version bump (https://sqlite.org/lang_altertable.html, "Making Other Kinds
// Of Table Schema Changes"). That keeps every row and every index as it is. The compatible
// version becomes 5: an older r4tune does not know the generation "ldg" and must refuse the file
// rather than read those rows.
void widen_generation_checks(const Connection& c) {
  loosen_check(c, "CHECK (gen IN ('mma_sync', 'sm90a'))",
               "CHECK (gen IN ('mma_sync', 'sm90a', 'ldg'))",
               "the generation CHECK of compiles / measurements is not the version-3 text");
}

// Version 6 (session 25): the sm90a generation's stream-K configs carry SK = 132 (the block count;
// kernels/config.hpp kSm90aStreamK), which the version-1 CHECK (sk BETWEEN 1 AND 64) of compiles
// and measurements refuses (the first H200 sweep with them failed on it, cleanly: "CHECK
// constraint failed"). Loosened to 1..256 by the same edit of the CREATE text as version 5 (every
// stored row still satisfies it). An older reader would take SK 132 for a split-K factor and
// launch 132 splits, so v6 files are for v6 readers only.
void widen_sk_checks(const Connection& c) {
  loosen_check(c, "CHECK (sk BETWEEN 1 AND 64)", "CHECK (sk BETWEEN 1 AND 256)",
               "the SK CHECK of compiles / measurements is not the version-1 text");
}

void write_meta(const Connection& c, int version, int compatible) {
  auto s = c.prepare(
      "INSERT INTO meta(key, value) VALUES (?1, ?2) "
      "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  s.bind_all("version", std::to_string(version)).run();
  s.reset();
  s.bind_all("last_compatible_version", std::to_string(compatible)).run();
}

const Migration kMigrations[] = {
    {1, 1, [](const Connection& c) { c.exec(kSchemaV1); }},
    {2, 1, [](const Connection& c) { c.exec(kSchemaV2); }},
    {3, 3, [](const Connection& c) { c.exec(kSchemaV3); }},
    {4, 3, [](const Connection& c) { c.exec(kSchemaV4); }},
    {5, 5, widen_generation_checks},
    {6, 6, widen_sk_checks},
};

}  // namespace

bool has_table(const Connection& c, const char* name) {
  auto s = c.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  s.bind(1, name);
  return s.step();
}

bool has_column(const Connection& c, const char* table, const char* column) {
  auto s = c.prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  s.bind_all(table, column);
  return s.step();
}

std::span<const Migration> migrations() {
  return kMigrations;
}

SchemaVersion read_schema_version(const Connection& c) {
  if (!has_table(c, "meta")) return {};
  auto get = [&](const char* key) {
    auto s = c.prepare("SELECT value FROM meta WHERE key = ?1");
    s.bind(1, key);
    if (!s.step())
      throw SchemaError(
          fmt::format("database '{}' has a meta table without '{}'; it was not written by "
                      "r4tune or is damaged",
                      c.path(), key));
    const std::string v = s.text(0);
    try {
      return std::stoi(v);
    } catch (const std::exception&) {
      throw SchemaError(
          fmt::format("database '{}': meta '{}' is '{}', not a number", c.path(), key, v));
    }
  };
  return {get("version"), get("last_compatible_version")};
}

void check_readable(const SchemaVersion& v, int current, int oldest_readable,
                    const std::string& path) {
  if (v.version == 0)
    throw SchemaError(fmt::format("'{}' is not an r4tune database (no meta table)", path));
  if (v.compatible_version > current)
    throw SchemaError(fmt::format(
        "database '{}' has schema version {} (readable by schema {} and newer); this r4tune "
        "understands schema {}: use a newer r4tune",
        path, v.version, v.compatible_version, current));
  if (v.version < oldest_readable)
    throw SchemaError(fmt::format(
        "database '{}' has schema version {}, older than this r4tune reads without migrating "
        "({} and newer; this r4tune writes {}); open it for writing once (e.g. `r4tune db merge` "
        "into it, or any sweep) to migrate it",
        path, v.version, oldest_readable, current));
}

SchemaVersion check_migratable(const Connection& c, std::span<const Migration> steps) {
  const int target = steps.empty() ? 0 : steps.back().to_version;
  const SchemaVersion v = read_schema_version(c);
  if (v.version == 0) {
    const auto n = c.query_text("SELECT count(*) FROM sqlite_master");
    if (n && *n != "0")
      throw SchemaError(fmt::format(
          "'{}' is a SQLite database but not an r4tune one (it has tables and no meta table); "
          "refusing to touch it",
          c.path()));
  }
  if (v.compatible_version > target)
    throw SchemaError(fmt::format(
        "database '{}' has schema version {} (compatible back to {}); this r4tune understands "
        "schema {} only: use a newer r4tune",
        c.path(), v.version, v.compatible_version, target));
  return v;
}

SchemaVersion read_consistent_version(const Connection& c, std::span<const Migration> steps) {
  // One read transaction, so the meta table and sqlite_master are read from one snapshot: a
  // process migrating the file at the same moment is seen before or after its step, never in
  // between (which read as "tables and no meta table": a foreign file).
  c.exec("BEGIN DEFERRED");
  try {
    const SchemaVersion v = check_migratable(c, steps);
    c.exec("COMMIT");
    return v;
  } catch (...) {
    try {
      c.exec("ROLLBACK");
    } catch (...) {  // the read transaction may not have started
    }
    throw;
  }
}

int migrate(const Connection& c, std::span<const Migration> steps) {
  SchemaVersion v = read_consistent_version(c, steps);
  for (const auto& step : steps) {
    if (step.to_version <= v.version) continue;
    // The write lock first (BEGIN IMMEDIATE waits in the busy timeout while another process
    // migrates), then the version again under it: several sweeps starting at once on a new file
    // all saw version 0, and all but the first used to fail with "table meta already exists"
    // (issue 15). Now one migrates and the others find its result here and skip the step.
    Transaction t(c);
    v = check_migratable(c, steps);
    if (step.to_version <= v.version) continue;  // done by another process; t rolls back
    if (step.to_version != v.version + 1)
      throw SchemaError(
          fmt::format("no migration from schema {} to {}", v.version, step.to_version));
    try {
      step.apply(c);
      write_meta(c, step.to_version, step.compatible_version);
    } catch (const Error& e) {
      throw SchemaError(
          fmt::format("migrating '{}' from schema {} to {} failed, nothing changed: {}", c.path(),
                      v.version, step.to_version, e.what()));
    }
    t.commit();
    v = {step.to_version, step.compatible_version};
  }
  return v.version;
}

}  // namespace r4::db
