// `mpirun -n N r4tune sweep ...` end to end on this machine (ranks oversubscribed on 2 cores, the
// replay worker standing in for GPUs): compiles split over 3 ranks with --compile-only and no
// GPU; 2 ranks making one run in one database with every race stored once; a rank whose races
// fail reported by rank 0 with its host and GPU, then --resume with 3 ranks finishing the run; a
// rank killed with SIGKILL mid-sweep reported, then --resume without MPI finishing it; a config
// that hung not checked again by any rank after --resume; a rank count that changed where the
// resume cannot be honoured, and a database rank 0 cannot write, refused before anything runs.
// Skipped where mpirun is not installed (scripts/setup.sh installs Debian's Open MPI).
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "sweep_test_util.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4 {
namespace {

namespace fs = std::filesystem;
using namespace sweep_test;

// Open MPI refuses root without these (CI may run as root); --oversubscribe: more ranks than the
// 2 cores.
std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "OMPI_MCA_rmaps_base_oversubscribe=1 "
         "timeout 240 mpirun --oversubscribe -n " +
         std::to_string(ranks) + " ";
}

bool have_mpirun() {
  return sh("command -v mpirun").code == 0;
}

class SweepMpi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_mpirun()) return;
    dir_ = new std::string(temp_dir());
    spec_ = new std::string(tiny_spec(*dir_));
    // The warm compile cache, and the one-process reference run.
    auto r = sh(kBin + " sweep " + *spec_ + " --db " + *dir_ + "/warm.db --compile-only -q");
    ASSERT_EQ(r.code, 0) << r.out;
    fs::copy_file(*dir_ + "/warm.db", *dir_ + "/ref.db");
    r = sh(sweep(*spec_, *dir_ + "/ref.db"));
    ASSERT_EQ(r.code, 0) << r.out;
    want_ = new db::RunCounts(counts(*dir_ + "/ref.db", 2));
  }
  static void TearDownTestSuite() {
    if (!dir_) return;
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
    delete spec_;
    delete want_;
  }
  void SetUp() override {
    if (!have_mpirun()) GTEST_SKIP() << "mpirun is not installed (Debian: openmpi-bin)";
  }
  std::string warm_copy(const std::string& name) {
    const std::string path = *dir_ + "/" + name;
    fs::copy_file(*dir_ + "/warm.db", path, fs::copy_options::overwrite_existing);
    return path;
  }
  static std::string* dir_;
  static std::string* spec_;
  static db::RunCounts* want_;
};
std::string* SweepMpi::dir_ = nullptr;
std::string* SweepMpi::spec_ = nullptr;
db::RunCounts* SweepMpi::want_ = nullptr;

TEST_F(SweepMpi, CompileOnlyWithThreeRanksSplitsTheCompilesWithoutAGpu) {
  const std::string db = *dir_ + "/compile-only.db";
  auto r = sh("R4_REPLAY_NO_DEVICE=1 " + mpirun(3) + kBin + " sweep " + *spec_ + " --db " + db +
              " --compile-only --plain");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("mpi: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compiled over 3 ranks"), std::string::npos) << r.out;
  auto s = db::Store::open_read_only(db);
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].ranks, 3);
  EXPECT_EQ(runs[0].status, db::RunStatus::partial);
  // Every config compiled once, stored by rank 0: the one-process count.
  EXPECT_EQ(s.counts(runs[0].id).compiles, want_->compiles);
  EXPECT_EQ(s.connection().query_text("SELECT count(*) FROM compiles WHERE status = 'ok'"),
            std::to_string(want_->compiles));
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST_F(SweepMpi, TwoRanksMakeOneRunWithEveryRaceStoredOnce) {
  const auto db = warm_copy("two.db");
  const std::string log = *dir_ + "/two.log";
  // Samples slow enough that rank 1 asks for a race while some are left: the ranks take races
  // from one queue on rank 0 (remote_queue.hpp), and instant replay races could all go to rank 0.
  auto r = sh("R4_REPLAY_DEVICES=X,X R4_REPLAY_SAMPLE_DELAY_US=2000 " + mpirun(2) +
              sweep(*spec_, db, "--dispatch-log " + log));
  ASSERT_EQ(r.code, 0) << r.out;
  auto s = db::Store::open_read_only(db);
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  const auto& run = runs.back();
  EXPECT_EQ(run.status, db::RunStatus::complete);
  EXPECT_EQ(run.ranks, 2);
  expect_same_counts(s.counts(run.id), *want_);
  auto ref = db::Store::open_read_only(*dir_ + "/ref.db");
  EXPECT_EQ(measurements_per_race(s, run.id), measurements_per_race(ref, 2));
  std::set<std::tuple<int, std::int64_t, std::int64_t, int>> baselines;
  for (const auto& b : s.baselines(run.id))
    EXPECT_TRUE(baselines.insert({static_cast<int>(b.kind), b.n, b.k, b.m}).second)
        << "a baseline stored twice";
  // Both ranks' GPUs took races, and the rows say which.
  const auto gpus = s.run_gpus(run.id);
  ASSERT_EQ(gpus.size(), 2u);
  std::set<int> ranks;
  for (const auto& g : gpus) {
    ranks.insert(g.rank);
    EXPECT_GT(g.races, 0) << "rank " << g.rank;
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1}));
  std::set<db::Id> used;
  for (const auto& m : s.measurements(run.id)) used.insert(*m.gpu_id);
  EXPECT_EQ(used.size(), 2u);
  // Rank 0's dispatch log has both ranks' workers.
  const std::string text = testing::read_file(log);
  std::size_t workers = 0;
  for (auto p = text.find("\"event\":\"worker\""); p != std::string::npos;
       p = text.find("\"event\":\"worker\"", p + 1))
    ++workers;
  EXPECT_EQ(workers, 2u) << text;
  EXPECT_NE(text.find("\"rank\":1"), std::string::npos) << text;
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST_F(SweepMpi, AFailedRankIsReportedAndResumeWithThreeRanksFinishes) {
  const auto db = warm_copy("failed-rank.db");
  // Slow samples: rank 1 must get races to fail (see TwoRanksMakeOneRunWithEveryRaceStoredOnce).
  auto r = sh("R4_REPLAY_DEVICES=X,X R4_REPLAY_RACE_CRASH_RANK=1 R4_REPLAY_SAMPLE_DELAY_US=2000 " +
              mpirun(2) + sweep(*spec_, db));
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("on rank 1 host"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
  {
    auto s = db::Store::open_read_only(db);
    EXPECT_EQ(s.list_runs().back().status, db::RunStatus::partial);
    EXPECT_LT(s.counts(s.list_runs().back().id).winners, want_->winners);
    EXPECT_EQ(s.integrity_check(), "ok");
  }
  auto res = sh("R4_REPLAY_DEVICES=X,X " + mpirun(3) + sweep(*spec_, db, "--resume"));
  ASSERT_EQ(res.code, 0) << res.out;
  auto s = db::Store::open_read_only(db);
  const auto run = s.list_runs().back();
  EXPECT_EQ(run.status, db::RunStatus::complete);
  EXPECT_EQ(run.ranks, 3);
  expect_same_counts(s.counts(run.id), *want_);
  EXPECT_EQ(s.integrity_check(), "ok");
}

// A run stopped right after a config hung (the smoke spec injects a crash, then a hang), resumed
// with 2 ranks: rank 0 shares the run's stored timeout with rank 1 (sweep.cpp share_runs), so no
// rank checks that config again; its other checks are stored not_run, whichever rank's race needed
// them. Before the sharing, rank 1 re-checked it and hung once more (5 s, a second timeout row).
TEST_F(SweepMpi, AConfigThatHungIsNotCheckedAgainByAnyRankAfterResume) {
  const std::string smoke = std::string(R4_SOURCE_ROOT) + "/configs/test/smoke.toml";
  const auto db = *dir_ + "/hung.db";
  auto r = sh("R4_REPLAY_DEVICES=X,X " + sweep(smoke, db, "--max-consecutive-faults 2"));
  ASSERT_EQ(r.code, 1) << r.out;
  auto res = sh("R4_REPLAY_DEVICES=X,X " + mpirun(2) + sweep(smoke, db, "--resume"));
  ASSERT_EQ(res.code, 0) << res.out;
  EXPECT_EQ(res.out.find("check timeout: "), std::string::npos) << res.out;
  auto s = db::Store::open_read_only(db);
  const auto run = s.list_runs().back();
  EXPECT_EQ(run.status, db::RunStatus::complete);
  int timeout = 0, not_run = 0;
  for (const auto& c : s.checks(run.id)) {
    timeout += c.status == db::CheckStatus::timeout;
    not_run += c.status == db::CheckStatus::not_run &&
               c.detail.find("not run: this config timed out at N=") != std::string::npos;
  }
  EXPECT_EQ(timeout, 1);
  EXPECT_EQ(not_run, 3);
  EXPECT_EQ(s.integrity_check(), "ok");
}

// The process of rank `rank` of a sweep whose command line names `db` (ours: the path is unique).
pid_t rank_process(const std::string& db, int rank) {
  DIR* d = opendir("/proc");
  pid_t found = -1;
  while (dirent* e = readdir(d)) {
    const pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    const std::string base = "/proc/" + std::to_string(pid);
    std::error_code ec;
    if (fs::read_symlink(base + "/exe", ec) != fs::path(kBin)) continue;
    const std::string cmd = testing::read_file(base + "/cmdline");
    if (cmd.find(db) == std::string::npos) continue;
    const std::string env = testing::read_file(base + "/environ");
    if (env.find(std::string("OMPI_COMM_WORLD_RANK=") + std::to_string(rank) + '\0') ==
        std::string::npos)
      continue;
    found = pid;
  }
  closedir(d);
  return found;
}

TEST_F(SweepMpi, AKilledRankIsReportedAndResumeWithoutMpiFinishes) {
  const auto db = warm_copy("killed-rank.db");
  const std::string out = *dir_ + "/killed.out";
  // Slow samples, so the sweep is mid-way when rank 1 is killed; rank 0 notices its process is
  // gone (same host), reports it and ends the job (mpirun would too).
  std::jthread sweep_thread([&] {
    sh("R4_REPLAY_DEVICES=X,X R4_REPLAY_SAMPLE_DELAY_US=4000 " + mpirun(2) +
       sweep(*spec_, db, "--rank-timeout-s 30") + " >" + out + " 2>&1");
  });
  pid_t victim = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    try {
      auto s = db::Store::open_read_only(db);
      const auto runs = s.list_runs();
      if (runs.size() == 2 && s.counts(runs.back().id).measurements > 0) {
        victim = rank_process(db, 1);
        if (victim > 0) {
          ::kill(victim, SIGKILL);
          break;
        }
      }
    } catch (const std::exception&) {
    }
  }
  sweep_thread.join();
  ASSERT_GT(victim, 0) << "rank 1 was never found mid-sweep: " << testing::read_file(out);
  const std::string text = testing::read_file(out);
  EXPECT_NE(text.find("rank 1 (host"), std::string::npos) << text;
  EXPECT_NE(text.find("failed"), std::string::npos) << text;
  {
    auto s = db::Store::open_read_only(db);
    EXPECT_EQ(s.integrity_check(), "ok");
    EXPECT_NE(s.list_runs().back().status, db::RunStatus::complete);
  }
  auto res = sh("R4_REPLAY_DEVICES=X,X " + sweep(*spec_, db, "--devices all --resume"));
  ASSERT_EQ(res.code, 0) << res.out;
  EXPECT_NE(res.out.find("started with 2 ranks"), std::string::npos) << res.out;
  auto s = db::Store::open_read_only(db);
  const auto run = s.list_runs().back();
  EXPECT_EQ(run.status, db::RunStatus::complete);
  expect_same_counts(s.counts(run.id), *want_);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST_F(SweepMpi, BadInputIsRefusedBeforeAnythingRuns) {
  // A rank count that changed under --resume where the launch cannot honour it: the run's GPUs
  // are not among this launch's.
  const auto db = warm_copy("layout.db");
  auto r = sh("R4_REPLAY_DEVICES=X,X R4_REPLAY_RACE_CRASH_RANK=1 R4_REPLAY_SAMPLE_DELAY_US=2000 " +
              mpirun(2) + sweep(*spec_, db));
  ASSERT_NE(r.code, 0) << r.out;
  auto bad = sh("R4_REPLAY_DEVICES=Y " + mpirun(3) + sweep(*spec_, db, "--resume"));
  EXPECT_NE(bad.code, 0) << bad.out;
  EXPECT_NE(bad.out.find("rank count changed and cannot be honoured"), std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("started with 2 MPI ranks"), std::string::npos) << bad.out;
  // A database rank 0 cannot write.
  const std::string nowhere = *dir_ + "/no/such/folder/x.db";
  auto nw = sh(mpirun(2) + sweep(*spec_, nowhere));
  EXPECT_NE(nw.code, 0) << nw.out;
  EXPECT_NE(nw.out.find(nowhere), std::string::npos) << nw.out;
  EXPECT_NE(nw.out.find("does not exist"), std::string::npos) << nw.out;
  // A GPU the ranks' host lacks.
  auto seven = sh(mpirun(2) + sweep(*spec_, warm_copy("seven.db"), "--devices 7"));
  EXPECT_NE(seven.code, 0) << seven.out;
  EXPECT_NE(seven.out.find("GPU 7 is not on host"), std::string::npos) << seven.out;
}

}  // namespace
}  // namespace r4
