// r4tune db / emit / report: clear messages and the documented exit codes (2 usage, 3 bad input)
// for missing, corrupt, foreign and too-new databases and unknown runs; read commands never
// write to the database.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "db/sqlite.hpp"
#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace {

using r4::testing::read_file;
using r4::testing::TempDir;

const std::string kR4tune = std::string(R4_BINARY_ROOT) + "/tuner/r4tune";
const std::string kFixture = std::string(R4_SOURCE_ROOT) + "/tests/fixtures/synthetic.db";

struct Result {
  int code;
  std::string out, err;
};

Result r4tune(const TempDir& dir, const std::string& args) {
  const std::string out = dir.file("stdout"), err = dir.file("stderr");
  const int rc = std::system(("cd '" + dir.path().string() + "' && '" + kR4tune + "' " + args +
                              " > '" + out + "' 2> '" + err + "'")
                                 .c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_file(out), read_file(err)};
}

std::size_t files_in(const TempDir& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++n;
  return n;
}

TEST(CliDb, ReadCommandsOnTheFixture) {
  TempDir dir;
  std::filesystem::copy_file(kFixture, dir.file("fx.db"));
  const std::string before = read_file(dir.file("fx.db"));

  auto r = r4tune(dir, "db runs --db fx.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5e7d0000-0000-4000-8000-000000000001"), std::string::npos) << r.out;
  r = r4tune(dir, "db show latest --db fx.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("SYNTHETIC"), std::string::npos);
  EXPECT_NE(r.out.find("gemm_w4a8_nt"), std::string::npos);
  r = r4tune(dir, "db show 5e7d --db fx.db");
  EXPECT_EQ(r.code, 0) << r.err;
  r = r4tune(dir, "emit --db fx.db --run latest --format python --out t.py");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("t.py")),
            read_file(std::string(R4_SOURCE_ROOT) + "/configs/generated/synthetic_tables.py"));
  r = r4tune(dir, "emit --db fx.db --run 1 --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.front(), '{');
  r = r4tune(dir, "report --db fx.db --run latest --html r.html --csv r.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_GT(read_file(dir.file("r.html")).size(), 10000u);
  r = r4tune(dir, "db export --db fx.db --csv all.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  // Read-only: same bytes, and no -wal / -shm / journal left behind.
  EXPECT_EQ(read_file(dir.file("fx.db")), before);
  EXPECT_FALSE(std::filesystem::exists(dir.file("fx.db-wal")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("fx.db-shm")));
}

// The fixture has winners of both kernel generations: `db show` names each winner's generation
// and counts them; read commands re-validate winners with kernels::is_valid, generation and ST
// included (an sm90a winner with 5 ring stages passes the range check and fails is_valid).
TEST(CliDb, GenerationsAreShownAndRevalidated) {
  TempDir dir;
  std::filesystem::copy_file(kFixture, dir.file("fx.db"));
  auto r = r4tune(dir, "db show latest --db fx.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  generations   mma_sync: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; sm90a: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" sm90a    ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" mma_sync ("), std::string::npos) << r.out;
  {
    r4::db::Connection c(dir.file("fx.db"), r4::db::OpenMode::read_write_create);
    c.exec(
        "UPDATE winners SET st = 5 WHERE id = (SELECT min(id) FROM winners WHERE gen = 'sm90a')");
  }
  r = r4tune(dir, "emit --db fx.db --run latest --format cpp --out t.hpp");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("is not valid for"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", 5) is not valid"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.hpp")));
  r = r4tune(dir, "report --db fx.db --run latest --html r.html");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(read_file(dir.file("r.html")).find("Invalid winner left out of the tables"),
            std::string::npos);
}

TEST(CliDb, DefaultDbIsInTheCurrentFolder) {
  TempDir dir;
  std::filesystem::copy_file(kFixture, dir.file("r4tune.db"));
  EXPECT_EQ(r4tune(dir, "db runs").code, 0);
}

TEST(CliDb, BadInputsAreClearErrors) {
  TempDir dir;
  std::filesystem::copy_file(kFixture, dir.file("fx.db"));

  auto r = r4tune(dir, "emit --db missing.db --format python");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("no database at 'missing.db'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));

  r = r4tune(dir, "emit --db fx.db --run 42 --format python");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("no run 42"), std::string::npos) << r.err;
  r = r4tune(dir, "db show nosuchrun --db fx.db");
  EXPECT_EQ(r.code, 3);

  // Corrupt: a damaged file is reported, and left exactly as it was.
  std::string bytes = read_file(dir.file("fx.db"));
  for (std::size_t i = 0; i < 64; ++i) bytes[i] = 'Z';
  r4::testing::write_file(dir.file("bad.db"), bytes);
  for (const char* cmd : {"db runs --db bad.db", "db show latest --db bad.db",
                          "emit --db bad.db --format cpp", "report --db bad.db --html x.html"}) {
    r = r4tune(dir, cmd);
    EXPECT_EQ(r.code, 3) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("bad.db"), std::string::npos) << r.err;
  }
  EXPECT_EQ(read_file(dir.file("bad.db")), bytes);
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.html")));

  // A database from a newer, incompatible r4tune.
  {
    auto s = r4::db::Store::open(dir.file("future.db"));
    s.connection().exec(
        "UPDATE meta SET value = '9' WHERE key IN ('version', 'last_compatible_version')");
  }
  r = r4tune(dir, "db runs --db future.db");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("use a newer r4tune"), std::string::npos) << r.err;
  r = r4tune(dir, "db merge fx.db --db future.db");
  EXPECT_EQ(r.code, 3) << r.err;

  // Usage errors.
  EXPECT_EQ(r4tune(dir, "db").code, 2);
  EXPECT_EQ(r4tune(dir, "db frobnicate --db fx.db").code, 2);
  EXPECT_EQ(r4tune(dir, "db show --db fx.db").code, 2);
  EXPECT_EQ(r4tune(dir, "db export --db fx.db").code, 2);
  EXPECT_EQ(r4tune(dir, "emit --db fx.db --format xml").code, 2);
  EXPECT_EQ(r4tune(dir, "emit --db fx.db").code, 2);
  EXPECT_EQ(r4tune(dir, "report --db fx.db").code, 2);
  EXPECT_EQ(r4tune(dir, "report --db fx.db --bogus").code, 2);
  EXPECT_EQ(r4tune(dir, "db merge fx.db --db fx.db").code, 2);
}

TEST(CliDb, MergeCreatesOrExtendsTheTarget) {
  TempDir dir;
  std::filesystem::copy_file(kFixture, dir.file("fx.db"));
  auto r = r4tune(dir, "db merge fx.db --db all.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 run(s) imported"), std::string::npos) << r.out;
  r = r4tune(dir, "db merge fx.db --db all.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 run(s) imported, 1 already present"), std::string::npos) << r.out;
  r = r4tune(dir, "emit --db all.db --format python --out t.py");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("t.py")),
            read_file(std::string(R4_SOURCE_ROOT) + "/configs/generated/synthetic_tables.py"));
  // A missing or corrupt source never creates the target.
  EXPECT_EQ(r4tune(dir, "db merge nope.db --db new.db").code, 3);
  r4::testing::write_file(dir.file("junk.db"), std::string(8192, 'j'));
  EXPECT_EQ(r4tune(dir, "db merge junk.db --db new.db").code, 3);
  EXPECT_FALSE(std::filesystem::exists(dir.file("new.db")));
  (void)files_in(dir);
}

}  // namespace
