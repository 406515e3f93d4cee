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
inline constexpr int kSchemaVersion = 3;
// The oldest schema version whose readers can still read a file this build writes. v2 only adds
// tables, so a v1 build still reads (and writes) a v2 file; it just never sees floors or steps.
// v3 adds tables and nullable columns (the GPU of each row): likewise.
inline constexpr int kCompatibleVersion = 1;
// The oldest schema this build reads without migrating (read-only opens: emit, report, db show,
// a merge's source). Every version since 1 only added tables and nullable columns, and the readers
// treat a missing table as empty and a missing column as NULL: the committed H200 fixture is v1
// and is read as it is.
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
