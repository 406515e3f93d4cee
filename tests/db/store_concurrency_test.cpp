// Several processes on one database at once (issue 15): opening and migrating a new file is safe
// when they all start together (one migrates, the others wait for its lock and find the result),
// and concurrent writers each keep their own run and lose nothing (WAL and the busy timeout).
// A path that cannot be written fails at open, naming it.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

constexpr int kRows = 40;    // measurements per writer
constexpr int kSamples = 8;  // samples per measurement

// A writer: waits on `gate` (so every writer opens the new file at the same moment), opens and
// migrates it, begins its own run, writes kRows measurements with samples and a compile that
// every writer shares (same cache key). Exit 0 when every write returned.
[[noreturn]] void writer(const std::string& path, int gate, int index) {
  char go = 0;
  if (read(gate, &go, 1) != 1) _exit(4);
  try {
    auto s = Store::open(path);
    const Id run = s.begin_run(testing::run_row("writer " + std::to_string(index)));
    CompileRow c;
    c.cache_key = "shared-key";
    c.kernel = "gemm_w4a16_nt";
    c.arch = "sm_90";
    const Id compile = s.insert_compile(c, run);
    std::vector<double> samples(kSamples);
    for (int i = 0; i < kRows; ++i) {
      MeasurementRow m;
      m.run_id = run;
      m.compile_id = compile;
      m.kernel = "gemm_w4a16_nt";
      m.dtype = "w4a16";
      m.n = 3072;
      m.k = 5120;
      m.m = 1 + i;
      m.median_us = 10.0 + i;
      for (int j = 0; j < kSamples; ++j) samples[static_cast<std::size_t>(j)] = 10.0 + i + j * 1e-3;
      (void)s.insert_measurement(m, samples);
    }
    s.finish_run(run);
    _exit(0);
  } catch (const std::exception& e) {
    fprintf(stderr, "writer %d: %s\n", index, e.what());
    _exit(3);
  }
}

TEST(StoreConcurrency, WritersStartingTogetherOnANewFileAllSucceed) {
  // Several rounds: the window in which two processes both see an empty file is short.
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    testing::TempDir dir;
    const std::string path = dir.file("new.db");
    constexpr int kWriters = 6;
    int gate[2];
    ASSERT_EQ(pipe(gate), 0);
    std::vector<pid_t> pids;
    for (int w = 0; w < kWriters; ++w) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(gate[1]);
        writer(path, gate[0], w);
      }
      pids.push_back(pid);
    }
    close(gate[0]);
    const std::string go(kWriters, 'g');
    ASSERT_EQ(write(gate[1], go.data(), go.size()), static_cast<ssize_t>(go.size()));
    close(gate[1]);
    for (pid_t pid : pids) {
      int st = 0;
      ASSERT_EQ(waitpid(pid, &st, 0), pid);
      EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "a writer failed: status " << st;
    }
    auto s = Store::open_read_only(path);
    EXPECT_EQ(s.integrity_check(), "ok");
    EXPECT_EQ(s.schema_version().version, kSchemaVersion);
    const auto runs = s.list_runs();
    ASSERT_EQ(runs.size(), static_cast<std::size_t>(kWriters));
    for (const auto& r : runs) {
      EXPECT_EQ(r.status, RunStatus::complete);
      const auto c = s.counts(r.id);
      EXPECT_EQ(c.measurements, kRows);
      EXPECT_EQ(c.samples, kRows * kSamples);
      EXPECT_EQ(c.compiles, 1);  // the one shared compile, linked by every run
    }
    EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM compiles"), "1");
  }
}

TEST(StoreConcurrency, AnUnwritablePathFailsAtOpenNamingIt) {
  testing::TempDir dir;
  const std::string missing = dir.file("no/such/folder/x.db");
  try {
    (void)Store::open(missing);
    FAIL() << "opened " << missing;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  // A read-only file (permissions do not stop root, so only where they apply).
  if (geteuid() != 0) {
    const std::string ro = dir.file("ro.db");
    { (void)Store::open(ro); }
    ASSERT_EQ(chmod(ro.c_str(), 0444), 0);
    try {
      (void)Store::open(ro);
      FAIL() << "opened the read-only " << ro << " for writing";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not writable"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace r4::db
