// A sweep killed with SIGKILL mid-stream loses at most the row in flight: the file stays intact
// and every insert that returned is there, samples included.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

constexpr int kSamples = 16;

[[noreturn]] void child(const std::string& path, int fd) {
  try {
    auto s = Store::open(path);
    const Id run = s.begin_run(testing::run_row("crash"));
    std::vector<double> samples(kSamples);
    for (int i = 0;; ++i) {
      MeasurementRow m;
      m.run_id = run;
      m.kernel = "gemm_w4a16_nt";
      m.dtype = "w4a16";
      m.n = 3072;
      m.k = 5120;
      m.m = 1 + i % 64;
      m.config = {1 + i % 4, 1 + i % 8, 1, 1, i % 2};
      m.median_us = 5.0 + i;
      for (int j = 0; j < kSamples; ++j) samples[static_cast<std::size_t>(j)] = 5.0 + i + j * 1e-3;
      const std::int64_t id = s.insert_measurement(m, samples);
      // Tell the parent this row is committed.
      if (write(fd, &id, sizeof id) != sizeof id) _exit(3);
    }
  } catch (...) {
    _exit(2);
  }
}

TEST(StoreCrash, SigkillMidStreamKeepsEveryCommittedRow) {
  testing::TempDir dir;
  const std::string path = dir.file("crash.db");
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    child(path, fds[1]);
  }
  close(fds[1]);
  std::vector<std::int64_t> committed;
  std::int64_t id = 0;
  // Let a few hundred rows commit, then kill it wherever it is.
  while (committed.size() < 300 && read(fds[0], &id, sizeof id) == sizeof id)
    committed.push_back(id);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exited early";
  // Rows acknowledged after our last read are committed too; drain them.
  while (read(fds[0], &id, sizeof id) == sizeof id) committed.push_back(id);
  close(fds[0]);
  ASSERT_GE(committed.size(), 300u);

  auto s = Store::open(path);  // recovers the WAL
  EXPECT_EQ(s.integrity_check(), "ok");
  EXPECT_EQ(s.connection().query_text("PRAGMA foreign_key_check"), std::nullopt);
  const RunRow run = s.list_runs().at(0);
  EXPECT_EQ(run.status, RunStatus::running);  // a resumer would mark it partial
  const auto rows = s.measurements(run.id);
  EXPECT_GE(rows.size(), committed.size());
  EXPECT_LE(rows.size(), committed.size() + 1);  // at most the row in flight
  for (std::int64_t c : committed) {
    const auto sm = s.samples(c);
    ASSERT_EQ(sm.size(), static_cast<std::size_t>(kSamples)) << "measurement " << c;
  }
  // No measurement is left without its samples (the row and its samples are one transaction).
  EXPECT_EQ(s.connection().query_text(
                "SELECT count(*) FROM measurements m WHERE (SELECT count(*) FROM samples "
                "WHERE measurement_id = m.id) <> m.n_samples"),
            "0");
  s.mark_partial(run.id, "killed by the test");
  EXPECT_EQ(s.resolve_run("latest").id, run.id);
}

}  // namespace
}  // namespace r4::db
