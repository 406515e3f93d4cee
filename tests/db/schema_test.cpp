// Schema versioning: every frozen older schema migrates to the current one; a newer-incompatible
// file, a foreign SQLite file and a non-database are refused without being touched; each
// migration is one transaction.
#include "db/schema.hpp"

#include <filesystem>
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
    {
      Connection c(db_path, OpenMode::read_only);
      EXPECT_EQ(read_schema_version(c).version, std::stoi(m[1]));
    }
    auto store = Store::open(db_path);
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
    // And it accepts new rows.
    const Id r2 = store.begin_run(testing::run_row("after migration"));
    store.finish_run(r2);
    EXPECT_EQ(store.list_runs().size(), 2u);
  }
  EXPECT_GE(seen, 1);
}

TEST(Schema, NewerIncompatibleDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.file("future.db");
  { auto s = Store::open(path); }
  {
    Connection c(path, OpenMode::read_write_create);
    c.exec(
        "UPDATE meta SET value = '7' WHERE key = 'version';"
        "UPDATE meta SET value = '5' WHERE key = 'last_compatible_version';");
  }
  const std::string before = read_file(path);
  try {
    auto s = Store::open(path);
    FAIL() << "opened a schema 7 (compatible 5) database";
  } catch (const SchemaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("schema version 7"), std::string::npos) << msg;
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
