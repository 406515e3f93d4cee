// The database's schema and its versioning, after Chromium's sql::MetaTable: a `meta` table holds
// `version` (the schema this file has) and `last_compatible_version` (the oldest reader that can
// still use it). A reader refuses a file whose compatible version is newer than it understands,
// and upgrades an older file one migration at a time, each in its own transaction.
#pragma once

#include <functional>
#include <span>
#include <string>

#include "db/sqlite.hpp"

namespace r4::db {

// The schema this build writes. Bump it with a new Migration below; never edit an old one.
inline constexpr int kSchemaVersion = 6;
// The oldest schema version whose readers can still read a file this build writes. v2 only added
// tables (a v1 build could still read a v2 file); v3 adds the configs' generation and ST, which
// an older reader would not see: it would take an sm90a row for an mma.sync one, so v3 files are
// for v3 readers only. v4 adds the GPU of every measured row (tables and nullable columns): a v3
// reader still reads a v4 file. v5 admits the generation "ldg" in compiles and measurements
// (db/schema.cpp): an older reader does not know it, so v5 files are for v5 readers only. v6
// admits SK up to 256 (the sm90a stream-K block count, 132): for v6 readers only.
inline constexpr int kCompatibleVersion = 6;
// The oldest schema this build reads without migrating (read-only opens: emit, report, db show,
// a merge's source). Every version since 1 only added tables or columns with defaults, and the
// readers treat a missing table as empty and a missing gen / st column as 'mma_sync' / 0: the
// committed H200 fixture is v1 and is read as it is.
inline constexpr int kOldestReadableVersion = 1;

class SchemaError : public Error {
 public:
  using Error::Error;
};

// Upgrades a file from version `to_version - 1` to `to_version`. `apply` runs inside the
// migration's transaction, which also updates `meta`.
struct Migration {
  int to_version;
  int compatible_version;  // last_compatible_version after this step
  std::function<void(const Connection&)> apply;
};

// The shipped migrations, in order; element i takes version i to version i + 1 (v0 = empty file).
[[nodiscard]] std::span<const Migration> migrations();

struct SchemaVersion {
  int version = 0;  // 0: no meta table (a new, empty file)
  int compatible_version = 0;
};

[[nodiscard]] SchemaVersion read_schema_version(const Connection& c);
[[nodiscard]] bool has_table(const Connection& c, const char* name);
[[nodiscard]] bool has_column(const Connection& c, const char* table, const char* column);

// Brings `c` up to the last migration's version, one transaction per step. Throws SchemaError
// when the file is newer than `steps` understands (compatible version > last step's version) or
// is not empty but lacks a meta table. Returns the version the file ends at.
int migrate(const Connection& c, std::span<const Migration> steps);
// migrate()'s checks alone, without writing anything; returns the file's version.
SchemaVersion check_migratable(const Connection& c, std::span<const Migration> steps);
// check_migratable in one read transaction (a consistent snapshot while another process may be
// migrating the same file). `c` must not be inside a transaction.
SchemaVersion read_consistent_version(const Connection& c, std::span<const Migration> steps);

// For read-only use: throws SchemaError unless `v` can be read by a build at `current` without
// migrating: newer but still compatible, or older but at least `oldest_readable`.
void check_readable(const SchemaVersion& v, int current, int oldest_readable,
                    const std::string& path);

}  // namespace r4::db
