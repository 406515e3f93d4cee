// Schema v3: every config the Store writes and reads carries its kernel generation (stored by
// name) and the sm90a generation's ST; older files read as mma_sync, ST 0; the range check, the
// validator hook, merge and the CSV export all see them.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::read_file;
using testing::TempDir;

const std::filesystem::path kFixtures = std::filesystem::path(R4_SOURCE_ROOT) / "tests/db/fixtures";
const Config kSm90a{4, 2, 1, 2, 1, kGenSm90a, 6};

DeviceRow h200() {
  DeviceRow d;
  d.name = "NVIDIA H200";
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.multiprocessors = 132;
  d.driver_version = "13.0";
  d.runtime_version = "NVRTC 13.0";
  d.compiler_version = "NVRTC 13.0";
  return d;
}

CompileRow compile(const Config& c) {
  CompileRow r;
  r.kernel = "gemm_w4a16_nt";
  r.config = c;
  r.arch = "sm_90";
  r.source_hash = "abc";
  r.options = "-DR4_GEN=" + std::to_string(c.gen) + "\n-DR4_ST=" + std::to_string(c.st);
  r.compiler_version = "NVRTC 13.0";
  r.cache_key = compile_key(r.source_hash, r.arch, r.options, r.compiler_version);
  return r;
}

MeasurementRow measurement(Id run, const Config& c) {
  MeasurementRow m;
  m.run_id = run;
  m.kernel = "gemm_w4a16_nt";
  m.dtype = "w4a16";
  m.n = 3072;
  m.k = 5120;
  m.m = 16;
  m.config = c;
  m.median_us = 4.0;
  return m;
}

WinnerRow winner(Id run, const Config& c) {
  WinnerRow w;
  w.run_id = run;
  w.kernel = "gemm_w4a16_nt";
  w.dtype = "w4a16";
  w.n = 3072;
  w.k = 5120;
  w.band_limit = w.m_measured = 16;
  w.config = c;
  w.median_us = 4.0;
  return w;
}

void load_dump(const std::string& db_path, const std::filesystem::path& sql) {
  Connection c(db_path, OpenMode::read_write_create);
  c.exec(read_file(sql.string()));
}

TEST(Generations, NamesAndText) {
  EXPECT_EQ(generation_name(kGenMmaSync), "mma_sync");
  EXPECT_EQ(generation_name(kGenSm90a), "sm90a");
  EXPECT_EQ(generation_name(7), "?");
  EXPECT_EQ(parse_generation("sm90a"), kGenSm90a);
  EXPECT_EQ(parse_generation("mma_sync"), kGenMmaSync);
  EXPECT_FALSE(parse_generation("sm80"));
  EXPECT_EQ(to_string(Config{1, 4, 1, 1, 0}), "(1, 4, 1, 1, 0)");
  EXPECT_EQ(to_string(kSm90a), "sm90a(4, 2, 1, 2, 1, 6)");
  EXPECT_EQ(knob_tuple(Config{1, 4, 1, 1, 0}), "(1, 4, 1, 1, 0)");
  EXPECT_EQ(knob_tuple(kSm90a), "(4, 2, 1, 2, 1, 6)");
}

TEST(Generations, RangeCheckPairsGenerationAndSt) {
  EXPECT_EQ(config_range_problem(Config{}), "");
  EXPECT_EQ(config_range_problem(kSm90a), "");
  EXPECT_NE(config_range_problem(Config{1, 1, 1, 1, 0, kGenMmaSync, 4}).find("ST = 4"),
            std::string::npos);
  EXPECT_NE(config_range_problem(Config{4, 1, 1, 1, 0, kGenSm90a, 0}).find("ST = 0"),
            std::string::npos);
  EXPECT_NE(config_range_problem(Config{4, 1, 1, 1, 0, kGenSm90a, 65}).find("1..64"),
            std::string::npos);
  EXPECT_EQ(config_range_problem(Config{4, 1, 1, 1, 0, kGenLdg, 4}), "");
  EXPECT_NE(config_range_problem(Config{4, 1, 1, 1, 0, kGenLdg, 0}).find("ST = 0"),
            std::string::npos);
  EXPECT_NE(config_range_problem(Config{4, 1, 1, 1, 0, 3, 4}).find("generation 3"),
            std::string::npos);
}

TEST(Generations, RoundTripThroughEveryTable) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  EXPECT_TRUE(s.has_generation_columns());
  const Id run = s.begin_run(testing::run_row("gen", s.upsert_device(h200())));
  const Id c0 = s.insert_compile(compile(Config{1, 4, 1, 1, 0}), run);
  const Id c1 = s.insert_compile(compile(kSm90a), run);
  EXPECT_NE(c0, c1);  // the generation reaches the compiler, so it is in the key
  EXPECT_EQ(s.find_compile(compile(kSm90a).cache_key)->config, kSm90a);
  const auto cs = s.compiles_for_run(run);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[1].config, kSm90a);

  auto m = measurement(run, kSm90a);
  m.compile_id = c1;
  const Id mid = s.insert_measurement(m);
  ASSERT_EQ(s.measurements(run).size(), 1u);
  EXPECT_EQ(s.measurements(run)[0].config, kSm90a);
  auto w = winner(run, kSm90a);
  w.measurement_id = mid;
  s.insert_winner(w);
  EXPECT_EQ(s.winners(run).at(0).config, kSm90a);
  // Stored by name, next to the knobs.
  EXPECT_EQ(s.connection().query_text("SELECT gen || ' ' || st FROM measurements"), "sm90a 6");
  EXPECT_EQ(s.connection().query_text("SELECT gen || ' ' || st FROM winners"), "sm90a 6");
  EXPECT_EQ(s.connection().query_text(
                "SELECT group_concat(gen || ' ' || st, ',') FROM (SELECT * FROM compiles "
                "ORDER BY id)"),
            "mma_sync 0,sm90a 6");
  // The same band won again by the other generation replaces the generation and ST too.
  s.insert_winner(winner(run, Config{2, 4, 1, 1, 1}));
  EXPECT_EQ(s.winners(run).at(0).config, (Config{2, 4, 1, 1, 1}));
  EXPECT_EQ(s.connection().query_text("SELECT gen || ' ' || st FROM winners"), "mma_sync 0");

  // Mismatched pairs are refused before SQL; the schema's CHECKs refuse what gets past it.
  EXPECT_THROW(s.insert_measurement(measurement(run, Config{1, 4, 1, 1, 0, kGenMmaSync, 6})),
               InvalidRow);
  EXPECT_THROW(s.insert_winner(winner(run, Config{4, 4, 1, 1, 0, kGenSm90a, 0})), InvalidRow);
  EXPECT_THROW(s.connection().exec("UPDATE measurements SET gen = 'sm80'"), Error);
  EXPECT_THROW(s.connection().exec("UPDATE compiles SET st = 65"), Error);
}

TEST(Generations, BadWinnersAreFlaggedAndTheValidatorSeesTheGeneration) {
  TempDir dir;
  auto s = Store::open(dir.file("a.db"));
  const Id run = s.begin_run(testing::run_row("gen", s.upsert_device(h200())));
  s.insert_winner(winner(run, kSm90a));
  Config seen;
  s.set_config_validator([&](const KernelConfigRow& r) {
    seen = r.config;
    return r.config.st != 6;
  });
  try {
    (void)s.winners(run);
    FAIL() << "validator was not applied";
  } catch (const InvalidRow& e) {
    EXPECT_NE(std::string(e.what()).find("config sm90a(4, 2, 1, 2, 1, 6) is not valid for "
                                         "gemm_w4a16_nt on sm_90"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(seen, kSm90a);
  s.set_config_validator({});
  // winners has no CHECK on its config columns: a damaged row is read back and flagged.
  s.connection().exec("UPDATE winners SET gen = 'sm80'");
  EXPECT_THROW((void)s.winners(run), InvalidRow);
  auto flagged = s.winners(run, OnInvalid::flag);
  ASSERT_EQ(flagged.size(), 1u);
  EXPECT_NE(flagged[0].problem.find("unknown generation 'sm80'"), std::string::npos)
      << flagged[0].problem;
  s.connection().exec("UPDATE winners SET gen = 'mma_sync'");  // st stays 6
  flagged = s.winners(run, OnInvalid::flag);
  EXPECT_NE(flagged[0].problem.find("ST = 6 in generation mma_sync"), std::string::npos)
      << flagged[0].problem;
}

TEST(Generations, ExportCsvAndMergeCarryThem) {
  TempDir dir;
  testing::SyntheticOptions small;
  small.shapes = 1;
  small.config_stride = 12;
  {
    auto b = Store::open(dir.file("b.db"));
    testing::fill_synthetic_run(b, small);
  }
  auto b = Store::open_read_only(dir.file("b.db"));
  const Id b_run = b.resolve_run("latest").id;
  const auto ms = b.measurements(b_run);
  const auto sm90a =
      std::count_if(ms.begin(), ms.end(), [](const auto& m) { return m.config.gen == kGenSm90a; });
  EXPECT_GT(sm90a, 0);
  EXPECT_LT(sm90a, static_cast<long>(ms.size()));

  b.export_csv(dir.file("all.csv"));
  const std::string csv = read_file(dir.file("all.csv"));
  EXPECT_NE(csv.find(",npw,nt,gen,st,status,"), std::string::npos);
  EXPECT_NE(csv.find(",sm90a,"), std::string::npos);
  EXPECT_NE(csv.find(",mma_sync,0,"), std::string::npos);

  auto a = Store::open(dir.file("a.db"));
  EXPECT_EQ(a.merge(dir.file("b.db")).runs_imported, 1);
  const Id a_run = a.resolve_run("latest").id;
  std::vector<Config> mine, theirs;
  for (const auto& m : a.measurements(a_run)) mine.push_back(m.config);
  for (const auto& m : ms) theirs.push_back(m.config);
  EXPECT_EQ(mine, theirs);
  const auto wa = a.winners(a_run), wb = b.winners(b_run);
  ASSERT_EQ(wa.size(), wb.size());
  for (std::size_t i = 0; i < wa.size(); ++i) EXPECT_EQ(wa[i].config, wb[i].config);
  EXPECT_EQ(a.compiles_for_run(a_run).size(), b.compiles_for_run(b_run).size());
}

// A v1 or v2 file opened read-only (emit, report, db show, a merge's source) has no gen / st
// columns: its configs read as mma_sync, ST 0, and it merges into a v3 file as such.
TEST(Generations, OlderFilesReadAsMmaSync) {
  for (const char* dump : {"schema_v1.sql", "schema_v2.sql"}) {
    SCOPED_TRACE(dump);
    TempDir dir;
    const std::string path = dir.file("old.db");
    load_dump(path, kFixtures / dump);
    const std::string before = read_file(path);
    {
      auto s = Store::open_read_only(path);
      EXPECT_FALSE(s.has_generation_columns());
      const Id run = s.resolve_run("latest").id;
      for (const auto& m : s.measurements(run)) EXPECT_EQ(m.config.gen, kGenMmaSync);
      for (const auto& w : s.winners(run)) {
        EXPECT_EQ(w.config.gen, kGenMmaSync);
        EXPECT_EQ(w.config.st, 0);
      }
      for (const auto& c : s.compiles_for_run(run)) EXPECT_EQ(c.config.gen, kGenMmaSync);
      s.export_csv(dir.file("all.csv"));
      const std::string csv = read_file(dir.file("all.csv"));
      EXPECT_NE(csv.find(",npw,nt,gen,st,status,"), std::string::npos);
      EXPECT_EQ(csv.find(",sm90a,"), std::string::npos);
      auto target = Store::open(dir.file("target.db"));
      EXPECT_EQ(target.merge(path).runs_imported, 1);
      EXPECT_EQ(target.connection().query_text("SELECT count(*) FROM winners WHERE gen <> "
                                               "'mma_sync' OR st <> 0"),
                "0");
    }
    EXPECT_EQ(read_file(path), before);  // nothing written
  }
}

// A file of today's schema is for v6 readers: a v2 build would take an sm90a row for an mma_sync
// one, a v3 or v4 build does not know the generation "ldg", and a v5 build would take the stream-K
// SK 132 for a split-K factor.
TEST(Generations, OlderReadersRefuseAVersion6File) {
  TempDir dir;
  const std::string path = dir.file("a.db");
  { auto s = Store::open(path); }
  Connection c(path, OpenMode::read_only);
  const SchemaVersion v = read_schema_version(c);
  EXPECT_EQ(v.compatible_version, 6);
  EXPECT_THROW(check_readable(v, 2, 1, path), SchemaError);
  EXPECT_THROW(check_readable(v, 4, 1, path), SchemaError);
  EXPECT_THROW(check_readable(v, 5, 1, path), SchemaError);
  EXPECT_NO_THROW(check_readable(v, 6, 1, path));
}

// SK 132 (stream-K) is stored and read back; a version-5 file is migrated to admit it, its rows
// kept.
TEST(Generations, StreamKSkIsStoredAfterMigratingAVersion5File) {
  TempDir dir;
  const std::string path = dir.file("v5.db");
  {
    Connection c(path, OpenMode::read_write_create);
    c.exec(read_file((kFixtures / "schema_v5.sql").string()));
  }
  auto s = Store::open(path);
  EXPECT_EQ(s.schema_version().version, kSchemaVersion);
  EXPECT_EQ(s.connection().query_text(
                "SELECT count(*) FROM sqlite_schema WHERE instr(sql, 'sk BETWEEN 1 AND 256') > 0"),
            "2");
  EXPECT_EQ(s.connection().query_text("PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace r4::db
