#include <gtest/gtest.h>

#include "reports/emit.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::report {
namespace {

const std::string kRoot = R4_SOURCE_ROOT;
const std::string kFixture = kRoot + "/tests/fixtures/synthetic.db";

TEST(GeneratedTables, CommittedFilesMatchTheFixture) {
  const auto store = db::Store::open_read_only(kFixture);
  const db::Id run = store.resolve_run("latest").id;
  struct Case {
    const char* format;
    const char* ext;
    std::string text;
  };
  const Case cases[] = {{"python", "py", emit_python(store, run)},
                        {"cpp", "hpp", emit_cpp(store, run)},
                        {"json", "json", emit_json(store, run)}};
  for (const auto& c : cases) {
    const std::string path = kRoot + "/configs/generated/synthetic_tables." + c.ext;
    EXPECT_EQ(testing::read_file(path), c.text)
        << path << " is stale; regenerate it with\n  r4tune emit --db tests/fixtures/synthetic.db"
        << " --run latest --format " << c.format << " --out configs/generated/synthetic_tables."
        << c.ext;
  }
}

// The tables r4d builds in by default: emitted from the dflash sweep on the H200 (2026-11-30),
// whose database is committed with compile binaries stripped, xz-compressed
// (tests/fixtures/h200-dflash-2026-11-30.db.tar.xz), and unpacked into the build tree by CMake.
TEST(GeneratedTables, CommittedH200TablesMatchTheirDatabase) {
  const auto store = db::Store::open_read_only(R4_H200_FIXTURE_DB);
  const db::Id run = store.resolve_run("1").id;
  EXPECT_EQ(testing::read_file(kRoot + "/configs/generated/h200_tables.py"),
            emit_python(store, run));
  EXPECT_EQ(testing::read_file(kRoot + "/configs/generated/h200_tables.hpp"), emit_cpp(store, run));
  EXPECT_EQ(testing::read_file(kRoot + "/configs/generated/h200_tables.json"),
            emit_json(store, run))
      << "regenerate with: r4tune emit --db build/fixtures/h200-dflash-2026-11-30.db --run 1 "
         "--format python|cpp|json --out configs/generated/h200_tables.{py,hpp,json}";
  EXPECT_EQ(store.integrity_check(), "ok");
  EXPECT_EQ(store.counts(run).winners, 96);  // 4 kernels x 6 shapes x 4 bands (session 7)
  EXPECT_EQ(store.counts(run).checks_failed, 0);
}

TEST(GeneratedTables, FixtureMatchesItsGenerator) {
  testing::TempDir dir;
  auto fresh = db::Store::open(dir.file("fresh.db"));
  const db::Id fresh_run = testing::fill_synthetic_run(fresh);
  const auto committed = db::Store::open_read_only(kFixture);
  const db::Id run = committed.resolve_run("latest").id;
  EXPECT_EQ(emit_json(fresh, fresh_run), emit_json(committed, run))
      << "tests/fixtures/synthetic.db is stale; regenerate it with make_fixture_db";
  EXPECT_EQ(fresh.counts(fresh_run).measurements, committed.counts(run).measurements);
  EXPECT_EQ(fresh.counts(fresh_run).samples, committed.counts(run).samples);
}

}  // namespace
}  // namespace r4::report
