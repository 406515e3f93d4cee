// Schema versioning: every frozen older schema migrates to the current one; a newer-incompatible
// file, a foreign SQLite file and a non-database are refused without being touched; each
// migration is one transaction.
#include "db/schema.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <vector>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::read_file;
using testing::TempDir;

const std::filesystem::path kFixtures = std::filesystem::path(R4_SOURCE_ROOT) / "tests/db/fixtures";

// count(*) of every table, by name.
std::map<std::string, std::string> row_counts(const Connection& c) {
  std::vector<std::string> tables;
  {
    auto s = c.prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
    while (s.step()) tables.push_back(s.text(0));
  }
  std::map<std::string, std::string> out;
  for (const auto& t : tables) out[t] = c.query_text("SELECT count(*) FROM \"" + t + "\"").value();
  return out;
}

void load_dump(const std::string& db_path, const std::filesystem::path& sql) {
  Connection c(db_path, OpenMode::read_write_create);
  c.exec(read_file(sql.string()));
}

TEST(Schema, FixtureExistsForEveryVersion) {
  for (int v = 1; v <= kSchemaVersion; ++v)
    EXPECT_TRUE(std::filesystem::exists(kFixtures / ("schema_v" + std::to_string(v) + ".sql")))
        << "freeze a dump of schema v" << v << " under tests/db/fixtures (see docs/DB.md)";
}

TEST(Schema, EveryFrozenVersionMigratesToCurrent) {
  const std::regex name(R"(schema_v(\d+)\.sql)");
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    ++seen;
    SCOPED_TRACE(file);
    TempDir dir;
    const std::string db_path = dir.file("old.db");
    load_dump(db_path, e.path());
    const int version = std::stoi(m[1]);
    std::map<std::string, std::string> rows_before;
    {
      Connection c(db_path, OpenMode::read_only);
      EXPECT_EQ(read_schema_version(c).version, version);
      rows_before = row_counts(c);
    }
    auto store = Store::open(db_path);
    // Every row of every table the old file had is still there (meta aside: it has the version).
    const auto rows_after = row_counts(store.connection());
    for (const auto& [table, n] : rows_before)
      if (table != "meta") {
        EXPECT_EQ(rows_after.at(table), n) << table;
      }
    EXPECT_EQ(store.schema_version().version, kSchemaVersion);
    EXPECT_EQ(store.schema_version().compatible_version, kCompatibleVersion);
    EXPECT_EQ(store.integrity_check(), "ok");
    // The old rows are all still there and read back through today's API and validation.
    const RunRow run = store.resolve_run("latest");
    EXPECT_NE(run.notes.find("SYNTHETIC"), std::string::npos);
    const auto counts = store.counts(run.id);
    EXPECT_GT(counts.measurements, 0);
    EXPECT_GT(counts.samples, 0);
    EXPECT_GT(counts.winners, 0);
    EXPECT_FALSE(store.winners(run.id).empty());
    EXPECT_FALSE(store.baselines(run.id).empty());
    // Floors and steps exist from v2 on: a v1 file has none, a frozen v2 file its fixture's.
    EXPECT_EQ(store.floors(run.id).empty(), version < 2);
    EXPECT_EQ(store.steps(run.id).empty(), version < 2);
    // Generations exist from v3 on: an older file's configs all read as mma_sync, ST 0; a frozen
    // v3 file has its fixture's sm90a rows.
    EXPECT_TRUE(store.has_generation_columns());
    const auto ms = store.measurements(run.id);
    const auto sm90a = std::count_if(ms.begin(), ms.end(),
                                     [](const auto& row) { return row.config.gen == kGenSm90a; });
    EXPECT_EQ(sm90a > 0, version >= 3);
    for (const auto& row : ms) {
      if (row.config.gen == kGenMmaSync) {
        EXPECT_EQ(row.config.st, 0);
      }
    }
    // And it accepts new rows, floors, steps and sm90a configs included.
    const Id r2 = store.begin_run(testing::run_row("after migration"));
    MeasurementRow mr;
    mr.run_id = r2;
    mr.kernel = "gemm_w4a8_nt";
    mr.dtype = "w4a8";
    mr.n = 3072;
    mr.k = 5120;
    mr.m = 64;
    mr.config = {8, 1, 4, 1, 0, kGenSm90a, 4};
    mr.median_us = 9.0;
    store.insert_measurement(mr);
    EXPECT_EQ(store.measurements(r2).at(0).config, mr.config);
    FloorRow f;
    f.run_id = r2;
    f.kind = FloorKind::launch;
    f.median_us = 0.5;
    store.insert_floor(f, std::vector<double>{0.5});
    StepRow st;
    st.run_id = r2;
    st.name = "after";
    st.m = 8;
    st.median_us = 30.0;
    st.launches = 6;
    store.insert_step(st, std::vector<double>{30.0});
    store.finish_run(r2);
    EXPECT_EQ(store.list_runs().size(), 2u);
    EXPECT_EQ(store.counts(r2).floors, 1);
    EXPECT_EQ(store.counts(r2).steps, 1);
    EXPECT_EQ(store.integrity_check(), "ok");
  }
  EXPECT_GE(seen, 1);
}

// Read commands (emit, report, db show, a merge's source) open a file read-only and never
// migrate it; v2 only added tables and v3 columns with defaults, so a v1 file reads as it is,
// with no floors, no steps and every config of the mma_sync generation
// (tests/db/store_generations_test.cpp reads the v2 dump too).
TEST(Schema, OlderDatabaseReadsWithoutMigrating) {
  TempDir dir;
  const std::string db_path = dir.file("v1.db");
  load_dump(db_path, kFixtures / "schema_v1.sql");
  const std::string before = read_file(db_path);
  {
    auto store = Store::open_read_only(db_path);
    EXPECT_EQ(store.schema_version().version, 1);
    EXPECT_FALSE(store.has_floor_tables());
    EXPECT_FALSE(store.has_generation_columns());
    const RunRow run = store.resolve_run("latest");
    EXPECT_TRUE(store.floors(run.id).empty());
    EXPECT_TRUE(store.steps(run.id).empty());
    EXPECT_FALSE(store.launch_floor(run.id));
    EXPECT_FALSE(store.read_floor(run.id, 3072, 5120, w4_weight_bytes(3072, 5120)));
    EXPECT_TRUE(store.floor_samples(1).empty());
    EXPECT_TRUE(store.step_samples(1).empty());
    const auto c = store.counts(run.id);
    EXPECT_GT(c.winners, 0);
    EXPECT_EQ(c.floors, 0);
    EXPECT_EQ(c.steps, 0);
    store.export_csv(dir.file("all.csv"));
    EXPECT_NE(read_file(dir.file("all.csv")).find(",floor_us,x_floor,"), std::string::npos);
    // A v1 file merges into a v2 one: its runs come over, without floors or steps.
    auto target = Store::open(dir.file("target.db"));
    EXPECT_EQ(target.merge(db_path).runs_imported, 1);
    EXPECT_EQ(target.counts(target.resolve_run("latest").id).winners, c.winners);
  }
  EXPECT_EQ(read_file(db_path), before);  // nothing written, nothing migrated
  // Once a version drops a table or column, older files are refused with the way out.
  try {
    check_readable({1, 1}, 3, 2, "old.db");
    FAIL() << "read a schema 1 file below the oldest readable 2";
  } catch (const SchemaError& e) {
    EXPECT_NE(std::string(e.what()).find("open it for writing once"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(check_readable({1, 1}, 2, 1, "old.db"));
}

TEST(Schema, NewerIncompatibleDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.file("future.db");
  { auto s = Store::open(path); }
  {
    Connection c(path, OpenMode::read_write_create);
    c.exec(
        "UPDATE meta SET value = '8' WHERE key = 'version';"
        "UPDATE meta SET value = '7' WHERE key = 'last_compatible_version';");
  }
  const std::string before = read_file(path);
  try {
    auto s = Store::open(path);
    FAIL() << "opened a schema 8 (compatible 7) database";
  } catch (const SchemaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("schema version 8"), std::string::npos) << msg;
    EXPECT_NE(msg.find("use a newer r4tune"), std::string::npos) << msg;
  }
  EXPECT_THROW((void)Store::open_read_only(path), SchemaError);
  EXPECT_EQ(read_file(path), before);
}

TEST(Schema, NewerButCompatibleDatabaseOpens) {
  // Chromium's MetaTable rule: a newer file whose compatible version we meet is usable as is.
  TempDir dir;
  const std::string path = dir.file("newer.db");
  { auto s = Store::open(path); }
  {
    Connection c(path, OpenMode::read_write_create);
    c.exec("UPDATE meta SET value = '" + std::to_string(kSchemaVersion + 1) +
           "' WHERE key = 'version'");
  }
  auto s = Store::open(path);
  EXPECT_EQ(s.schema_version().version, kSchemaVersion + 1);
  EXPECT_NO_THROW((void)Store::open_read_only(path));
}

TEST(Schema, ForeignSqliteFileIsNotTouched) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  {
    Connection c(path, OpenMode::read_write_create);
    c.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  }
  const std::string before = read_file(path);
  EXPECT_THROW((void)Store::open(path), SchemaError);
  EXPECT_THROW((void)Store::open_read_only(path), SchemaError);
  EXPECT_EQ(read_file(path), before);
}

TEST(Schema, NotADatabaseIsRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("garbage.db");
  testing::write_file(path, std::string(4096, 'x') + "this is not sqlite");
  const std::string before = read_file(path);
  EXPECT_THROW((void)Store::open(path), Error);
  EXPECT_THROW((void)Store::open_read_only(path), Error);
  EXPECT_EQ(read_file(path), before);
}

TEST(Schema, MigrationsRunOneTransactionEach) {
  TempDir dir;
  const std::string path = dir.file("m.db");
  Connection c(path, OpenMode::read_write_create);
  std::vector<Migration> steps(migrations().begin(), migrations().end());
  const int v1 = steps.back().to_version;
  steps.push_back({v1 + 1, 1, [](const Connection& cc) {
                     cc.exec("ALTER TABLE runs ADD COLUMN extra TEXT NOT NULL DEFAULT ''");
                   }});
  EXPECT_EQ(migrate(c, steps), v1 + 1);
  EXPECT_EQ(read_schema_version(c).version, v1 + 1);
  EXPECT_EQ(migrate(c, steps), v1 + 1);  // idempotent

  // A failing step leaves the file at the previous version with nothing of the step applied.
  steps.push_back({v1 + 2, 1, [](const Connection& cc) {
                     cc.exec("CREATE TABLE half_done(x)");
                     cc.exec("THIS IS NOT SQL");
                   }});
  EXPECT_THROW(migrate(c, steps), SchemaError);
  EXPECT_EQ(read_schema_version(c).version, v1 + 1);
  EXPECT_FALSE(c.query_text("SELECT name FROM sqlite_master WHERE name = 'half_done'"));

  // A gap in the chain is an error, not a silent skip.
  std::vector<Migration> gap(migrations().begin(), migrations().end());
  gap.push_back({v1 + 5, 1, [](const Connection&) {}});
  EXPECT_THROW(migrate(c, gap), SchemaError);
}

}  // namespace
}  // namespace r4::db
