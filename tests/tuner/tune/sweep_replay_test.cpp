// `r4tune sweep` end to end against the replay worker (tests/tuner/worker/replay_worker.cpp):
// real spec parsing, real NVRTC compiles, a real SQLite file, the real worker protocol and
// isolation; only the device answers are synthetic. Covers: injected faults (a crash, a hang, a
// wrong result) recorded with their reasons while everything else completes; the warm compile
// cache; the no-GPU exit; kill -9 during measurement then --resume giving the same counts as an
// uninterrupted run, with the integrity check passing.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <fmt/core.h>

#include "db/store.hpp"

namespace {

namespace fs = std::filesystem;
const std::string kBin = std::string(R4_BINARY_ROOT) + "/tuner/r4tune";
const std::string kWorker = std::string(R4_BINARY_ROOT) + "/tests/tuner/replay_worker";
const std::string kSmoke = std::string(R4_SOURCE_ROOT) + "/configs/test/smoke.toml";

struct Run {
  int code = -1;
  std::string out;
};

Run sh(const std::string& cmd) {
  Run r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

std::string sweep(const std::string& spec, const std::string& db, const std::string& extra = "") {
  return kBin + " sweep " + spec + " --db " + db + " --plain --worker " + kWorker +
         " --verify-timeout-ms 1500 " + extra;
}

std::string temp_dir() {
  std::string t = ::testing::TempDir() + "r4sweepXXXXXX";
  return ::mkdtemp(t.data());
}

// The smoke spec without its injected faults (the resume test wants plain races). With
// `mma_sync_only`, each [space] keeps the mma_sync generation alone (`gen = [0]`).
std::string plain_spec(const std::string& dir, bool mma_sync_only = false) {
  std::ifstream in(kSmoke);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = text.substr(0, text.find("[test]"));
  if (mma_sync_only)
    for (auto p = text.find("NT = [1]\n"); p != std::string::npos; p = text.find("NT = [1]\n", p))
      text.insert(p += 9, "gen = [0]\n");
  const std::string path = dir + "/plain.toml";
  std::ofstream(path) << text;
  return path;
}

r4::db::RunCounts counts_of(const std::string& db) {
  auto s = r4::db::Store::open_read_only(db);
  return s.counts(s.resolve_run("latest").id);
}

}  // namespace

// SK 2, 4 and 8 of a config compile one body (kernels/config.hpp sk_define): the cold sweep runs
// the compiler once per body, yet stores a `compiles` row per config (a sharer's with 0 s and a log
// beginning "shared body:"), and every check and measurement references its own config's row.
TEST(SweepReplay, SplitKConfigsShareOneCompileAndKeepARowEach) {
  const auto dir = temp_dir();
  const std::string spec = dir + "/sk.toml";
  std::ofstream(spec) << R"(name = "sk"
kernels = ["gemm_w4a8_nt"]
baselines = ["bf16"]
shapes = [{ name = "hidden_projection", n = 256, k = 5120 }]

[bands]
limits = [16]

[space.gemm_w4a8_nt]
WV = [4]
SK = [1, 2, 4, 8]
NT = [1]

[stop]
min_samples = 5
max_samples = 15
max_seconds = 0.5
)";
  const auto r = sh(sweep(spec, dir + "/sk.db", "--threads 2"));
  ASSERT_EQ(r.code, 0) << r.out;
  auto store = r4::db::Store::open_read_only(dir + "/sk.db");
  const auto run = store.resolve_run("latest");
  const auto compiles = store.compiles_for_run(run.id);
  std::map<r4::db::Id, r4::db::CompileRow> by_id;
  std::size_t split = 0, shared = 0;
  for (const auto& c : compiles) {
    by_id[c.id] = c;
    split += c.config.sk == 2 || c.config.sk == 4 || c.config.sk == 8;
    if (c.log.rfind("shared body:", 0) == 0) {
      ++shared;
      EXPECT_EQ(c.compile_seconds, 0.0);
      EXPECT_NE(c.config.sk, 1);
      EXPECT_NE(c.options.find("-DR4_SK=0\n"), std::string::npos) << c.options;
    }
  }
  ASSERT_GT(split, 0u);
  EXPECT_EQ(split % 3, 0u);
  EXPECT_EQ(shared, split / 3 * 2);  // one of the three SKs compiles, two share it
  EXPECT_NE(r.out.find(fmt::format("{} compiled in {} compiler runs", compiles.size(),
                                   compiles.size() - shared)),
            std::string::npos)
      << r.out;
  const auto checks = store.checks(run.id);
  EXPECT_FALSE(checks.empty());
  for (const auto& c : checks) EXPECT_EQ(by_id.count(c.compile_id), 1u);
  std::size_t measured = 0;
  for (const auto& m : store.measurements(run.id)) {
    if (!m.compile_id) continue;
    ++measured;
    ASSERT_EQ(by_id.count(*m.compile_id), 1u);
    EXPECT_EQ(by_id[*m.compile_id].config, m.config) << r4::db::to_string(m.config);
  }
  EXPECT_GT(measured, 0u);
}

TEST(SweepReplay, InjectedFaultsAreRecordedAndNothingElseIsLost) {
  const auto dir = temp_dir();
  const auto db = dir + "/a.db";
  auto r = sh(sweep(kSmoke, db));
  ASSERT_EQ(r.code, 0) << r.out;
  auto store = r4::db::Store::open_read_only(db);
  const auto run = store.resolve_run("latest");
  EXPECT_EQ(run.status, r4::db::RunStatus::complete);
  int fault = 0, timeout = 0, not_run = 0, wrong = 0, pass = 0;
  for (const auto& c : store.checks(run.id)) {
    if (c.status == r4::db::CheckStatus::fault) {
      ++fault;
      EXPECT_NE(c.detail.find("killed by signal"), std::string::npos) << c.detail;
    }
    if (c.status == r4::db::CheckStatus::timeout) {
      ++timeout;
      EXPECT_NE(c.detail.find("no answer within"), std::string::npos) << c.detail;
    }
    if (c.status == r4::db::CheckStatus::not_run) {
      ++not_run;
      EXPECT_NE(c.detail.find("TEST-INJECTED hang: not run: this config timed out at N=256 "
                              "K=5120 M=8"),
                std::string::npos)
          << c.detail;
    }
    wrong += c.status == r4::db::CheckStatus::wrong_result;
    pass += c.status == r4::db::CheckStatus::pass;
  }
  // The injected config (4,1,1,1,0) is valid at both shapes and both M: 4 checks per fault. The
  // hanging one times out at its first (shape, M) and is not checked again (verify_stage.cpp
  // skip_hung): its other three checks are not_run, without a worker call.
  EXPECT_EQ(fault, 4);
  EXPECT_EQ(timeout, 1);
  EXPECT_EQ(not_run, 3);
  EXPECT_EQ(wrong, 4);
  EXPECT_GT(pass, 20);
  // Every race finished: 2 kernels x 2 shapes x 2 bands winners, none of them a faulty variant.
  // Both generations raced in one group per (shape, M): the replay model gives band 8 to the
  // mma_sync generation and band 16 to the sm90a one (tests/tuner/worker/replay_worker.cpp).
  const auto winners = store.winners(run.id);
  EXPECT_EQ(winners.size(), 8u);
  for (const auto& w : winners) {
    EXPECT_GT(w.median_us, 0);
    ASSERT_TRUE(w.speedup_vs_fp8.has_value());
    EXPECT_GT(*w.speedup_vs_fp8, 1.0);  // replay: baselines 25-30 us, configs 8-19 us
    EXPECT_EQ(w.config.gen, w.band_limit == 8 ? r4::db::kGenMmaSync : r4::db::kGenSm90a)
        << r4::db::to_string(w.config) << " won band " << w.band_limit;
    if (w.config.gen == r4::db::kGenSm90a) {
      EXPECT_TRUE(w.config.st == 4 || w.config.st == 6 || w.config.st == 8);
    }
  }
  int measured[3] = {0, 0, 0};
  for (const auto& m : store.measurements(run.id))
    if (m.status != r4::db::MeasurementStatus::failed) ++measured[m.config.gen];
  EXPECT_GT(measured[r4::db::kGenMmaSync], 0);
  EXPECT_GT(measured[r4::db::kGenSm90a], 0);
  EXPECT_GT(measured[r4::db::kGenLdg], 0);
  // The summary prints configs as kernels::to_string does.
  EXPECT_NE(r.out.find("sm90a("), std::string::npos) << r.out;
  // No measurement was taken of a candidate that failed verification.
  for (const auto& m : store.measurements(run.id)) {
    for (const auto& c : store.checks(run.id)) {
      if (m.compile_id && *m.compile_id == c.compile_id && c.n == m.n && c.k == m.k && c.m == m.m) {
        EXPECT_EQ(c.status, r4::db::CheckStatus::pass);
      }
    }
  }
  EXPECT_EQ(store.integrity_check(), "ok");
  // Each failed check is said as it happens, naming the config, the shape and the reason
  // (verify_stage.cpp report_failed_check): 4 of each kind.
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto p = r.out.find(what); p != std::string::npos; p = r.out.find(what, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\ncheck fault: "), 4u) << r.out;
  EXPECT_EQ(count("\ncheck timeout: "), 1u) << r.out;
  EXPECT_EQ(count("\ncheck not_run: "), 3u) << r.out;
  EXPECT_EQ(count("\ncheck wrong_result: "), 4u) << r.out;
  EXPECT_NE(r.out.find("TEST-INJECTED hang: no answer within 1500 ms; the worker was killed ("),
            std::string::npos)
      << r.out;
  // The signal's number is not checked: under ASan the SEGV becomes an abort (signal 6).
  EXPECT_NE(r.out.find(" at N=256 K=5120 M=8: TEST-INJECTED oob: worker killed by signal "),
            std::string::npos)
      << r.out;
  // 2 kernels x (6 mma_sync + 12 sm90a + 8 ldg configs of the smoke space) + 3 injected.
  // The smoke space's SKs are 1 and 8: no two configs share a body (kernels/config.hpp sk_define).
  EXPECT_NE(r.out.find("55 compiled in 55 compiler runs (SK 2, 4 and 8 share a body), 0 from "
                       "cache"),
            std::string::npos)
      << r.out;

  // A second sweep on the warm cache compiles nothing.
  auto again = sh(sweep(kSmoke, db));
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(
      again.out.find("0 compiled in 0 compiler runs (SK 2, 4 and 8 share a body), 55 from cache"),
      std::string::npos)
      << again.out;
}

// A candidate that passed verification but crashes the worker while being timed: the round it was
// in fails as a whole, the race runs again one sample per request, names it, records it as failed
// and carries on; every other candidate is timed and each race still has winners.
// The mma_sync generation alone: a race finds at most 7 crashing entries (race_stage.cpp makes 8
// attempts), and with the sm90a generation's SK = 8 configs a race would hold 18.
TEST(SweepReplay, ACandidateCrashingWhileTimedIsRecordedAndTheRaceGoesOn) {
  const auto dir = temp_dir();
  const auto spec = plain_spec(dir, true);
  auto r = sh("R4_REPLAY_TIMING_CRASH_SK=8 " + sweep(spec, dir + "/t.db"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("racing again one sample at a time"), std::string::npos) << r.out;
  auto store = r4::db::Store::open_read_only(dir + "/t.db");
  const auto run = store.resolve_run("latest");
  EXPECT_EQ(run.status, r4::db::RunStatus::complete);
  int failed = 0, timed = 0;
  for (const auto& m : store.measurements(run.id)) {
    if (m.status == r4::db::MeasurementStatus::failed) {
      ++failed;
      EXPECT_EQ(m.config.sk, 8);
      EXPECT_NE(m.detail.find("failed while timing"), std::string::npos) << m.detail;
    } else {
      ++timed;
      EXPECT_NE(m.config.sk, 8);
      EXPECT_EQ(m.config.gen, r4::db::kGenMmaSync);  // the spec's `gen = [0]`
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(timed, 0);
  EXPECT_EQ(store.winners(run.id, r4::db::OnInvalid::flag).size(),
            8u);  // 2 kernels x 2 shapes x 2 bands
  EXPECT_EQ(store.integrity_check(), "ok");
}

// A build whose every kernel crashes the worker: the sweep stops after --max-consecutive-faults
// checks in a row instead of restarting the worker for each of the plan's checks, says why, and
// leaves a partial run that --resume can continue.
TEST(SweepReplay, AFamilyThatFaultsEverywhereStopsTheSweepEarly) {
  const auto dir = temp_dir();
  auto r = sh("R4_REPLAY_VERIFY_CRASH_ALL=1 " +
              sweep(plain_spec(dir), dir + "/f.db", "--max-consecutive-faults 5"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("5 checks in a row crashed the worker"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
  auto store = r4::db::Store::open_read_only(dir + "/f.db");
  const auto run = store.resolve_run("latest");
  EXPECT_EQ(run.status, r4::db::RunStatus::partial);
  EXPECT_EQ(store.checks(run.id).size(), 5u);
  EXPECT_EQ(store.integrity_check(), "ok");
}

// A sweep stopped right after a config hung (--max-consecutive-faults 2: the injected crash, then
// the injected hang), then resumed: the run's stored timeout keeps that config from being checked
// again (run_record.cpp restores it), so the resumed sweep stores its other checks as not_run
// naming where it hung, and times nothing of it.
TEST(SweepReplay, AConfigThatHungIsNotCheckedAgainAfterResume) {
  const auto dir = temp_dir();
  const auto db = dir + "/h.db";
  auto r = sh(sweep(kSmoke, db, "--max-consecutive-faults 2"));
  ASSERT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("2 checks in a row crashed the worker or timed out"), std::string::npos)
      << r.out;
  auto again = sh(sweep(kSmoke, db, "--resume"));
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(again.out.find("\ncheck timeout: "), std::string::npos) << again.out;
  auto store = r4::db::Store::open_read_only(db);
  const auto run = store.resolve_run("latest");
  EXPECT_EQ(run.status, r4::db::RunStatus::complete);
  int timeout = 0, not_run = 0;
  for (const auto& c : store.checks(run.id)) {
    timeout += c.status == r4::db::CheckStatus::timeout;
    if (c.status == r4::db::CheckStatus::not_run) {
      ++not_run;
      EXPECT_NE(c.detail.find("not run: this config timed out at N="), std::string::npos)
          << c.detail;
    }
  }
  EXPECT_EQ(timeout, 1);
  EXPECT_EQ(not_run, 3);
  EXPECT_EQ(store.integrity_check(), "ok");
}

// A build whose every kernel computes wrong results: every check is stored as wrong, but only the
// first 20 are said on the output (then a line says the rest are in the database), so a broken
// family does not bury the log in tens of thousands of lines; nothing is timed.
TEST(SweepReplay, WrongResultsAreSaidUpToALimit) {
  const auto dir = temp_dir();
  auto r = sh("R4_REPLAY_VERIFY_WRONG_ALL=1 " + sweep(plain_spec(dir, true), dir + "/w.db"));
  std::size_t lines = 0;
  for (auto p = r.out.find("\ncheck wrong_result: "); p != std::string::npos;
       p = r.out.find("\ncheck wrong_result: ", p + 1))
    ++lines;
  EXPECT_EQ(lines, 20u) << r.out;
  EXPECT_NE(r.out.find("replay: all wrong; further wrong or not-run checks are in the database "
                       "only\n"),
            std::string::npos)
      << r.out;
  auto store = r4::db::Store::open_read_only(dir + "/w.db");
  const auto run = store.resolve_run("latest");
  const auto checks = store.checks(run.id);
  EXPECT_GT(checks.size(), 20u);
  for (const auto& c : checks) EXPECT_EQ(c.status, r4::db::CheckStatus::wrong_result);
  for (const auto& m : store.measurements(run.id)) EXPECT_FALSE(m.compile_id.has_value());
  EXPECT_EQ(store.integrity_check(), "ok");
}

TEST(SweepReplay, NoGpuExitsFourAndCompileOnlyWorks) {
  const auto dir = temp_dir();
  auto r = sh("R4_REPLAY_NO_DEVICE=1 " + sweep(kSmoke, dir + "/b.db"));
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("--compile-only"), std::string::npos) << r.out;
  // Under ASan+UBSan, which checks host code, the 8-config smoke spec: ci.toml's 236 NVRTC
  // compiles took 263 s of one of CI's two cores there and reach no host code the smoke spec's
  // do not (the normal build still compiles ci.toml here).
#if defined(__SANITIZE_ADDRESS__)
  const std::string spec = kSmoke;
#else
  const std::string spec = std::string(R4_SOURCE_ROOT) + "/configs/test/ci.toml";
#endif
  auto c = sh(kBin + " sweep " + spec + " --db " + dir + "/c.db --compile-only --plain");
  EXPECT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("nothing was timed"), std::string::npos) << c.out;
  const auto counts = counts_of(dir + "/c.db");
  EXPECT_GT(counts.compiles, 0);
  EXPECT_EQ(counts.measurements, 0);
}

TEST(SweepReplay, KillNineThenResumeGivesTheUninterruptedCounts) {
  const auto dir = temp_dir();
  const auto spec = plain_spec(dir);
  // The uninterrupted reference (also fills the compile cache, copied below).
  auto ref = sh(sweep(spec, dir + "/ref.db"));
  ASSERT_EQ(ref.code, 0) << ref.out;
  const auto want = counts_of(dir + "/ref.db");
  fs::copy_file(dir + "/ref.db", dir + "/k.db");

  // Start the same sweep slowly, kill -9 it once a race has been stored, then resume.
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("R4_REPLAY_SAMPLE_DELAY_US", "3000", 1);
    execl("/bin/sh", "sh", "-c", (sweep(spec, dir + "/k.db") + " >/dev/null 2>&1").c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  bool killed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    try {
      auto s = r4::db::Store::open_read_only(dir + "/k.db");
      const auto runs = s.list_runs();
      if (runs.size() == 2 && s.counts(runs.back().id).measurements > 0) {
        // The shell's child is the sweep: kill the whole process group of the shell.
        ::kill(pid, SIGKILL);
        sh("pkill -9 -f 'k.db --plain --worker'");
        killed = true;
        break;
      }
    } catch (const std::exception&) {
    }
  }
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(killed) << "the sweep finished or never stored a race before the deadline";
  {
    auto s = r4::db::Store::open_read_only(dir + "/k.db");
    EXPECT_EQ(s.integrity_check(), "ok");
    const auto partial = s.counts(s.list_runs().back().id);
    EXPECT_LT(partial.winners, want.winners) << "killed too late to test anything";
  }
  auto res = sh(sweep(spec, dir + "/k.db", "--resume"));
  ASSERT_EQ(res.code, 0) << res.out;
  auto s = r4::db::Store::open_read_only(dir + "/k.db");
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs();
  const auto got = s.counts(runs.back().id);
  EXPECT_EQ(s.run(runs.back().id).status, r4::db::RunStatus::complete);
  EXPECT_EQ(got.measurements, want.measurements);
  EXPECT_EQ(got.checks, want.checks);
  EXPECT_EQ(got.winners, want.winners);
  EXPECT_EQ(got.baselines, want.baselines);
}

// A cold sweep races beside its compile stage: the configs that the small-M races need compile
// first (MB 4 is valid only from M = 49), so with one compile thread the first race begins with
// those compiled and the MB 4 ones compiling. It stores what a sweep on a warm cache stores.
TEST(SweepReplay, AColdSweepRacesBesideItsCompileAndStoresTheSameRows) {
  const auto dir = temp_dir();
  const std::string spec = dir + "/overlap.toml";
  std::ofstream(spec) << R"(name = "overlap"
kernels = ["gemm_w4a16_nt"]
baselines = ["bf16"]
shapes = [{ name = "hidden_projection", n = 256, k = 5120 }]
[bands]
limits = [16, 64]
[space.gemm_w4a16_nt]
WV = [4]
SK = [1]
NT = [1]
MB = [1, 4]
gen = ["mma_sync"]
[stop]
min_samples = 5
max_samples = 15
max_seconds = 0.5
)";
  const auto number_after = [](const std::string& out, const std::string& key) {
    const auto p = out.find("\"" + key + "\": ");
    return p == std::string::npos ? -1.0 : std::stod(out.substr(p + key.size() + 4));
  };
  auto cold = sh(sweep(spec, dir + "/o.db", "--threads 1 --json"));
  ASSERT_EQ(cold.code, 0) << cold.out;
  // The plan line: "...; N configs to compile (0 cached), ...".
  const auto plan_at = cold.out.find(" configs to compile");
  ASSERT_NE(plan_at, std::string::npos) << cold.out;
  const double to_compile = std::stod(cold.out.substr(cold.out.rfind(' ', plan_at - 1)));
  const double at_first = number_after(cold.out, "compiled_at_first_race");
  EXPECT_GT(at_first, 0) << cold.out;
  EXPECT_LT(at_first, to_compile) << "the first race waited for every config\n" << cold.out;
  EXPECT_GT(number_after(cold.out, "compile_beside_races"), 0) << cold.out;
  const auto first = counts_of(dir + "/o.db");
  auto warm = sh(sweep(spec, dir + "/o.db", "--json"));
  ASSERT_EQ(warm.code, 0) << warm.out;
  const auto second = counts_of(dir + "/o.db");
  EXPECT_EQ(first.checks_failed, 0);
  EXPECT_EQ(second.checks, first.checks);
  EXPECT_EQ(second.measurements, first.measurements);
  EXPECT_EQ(second.winners, first.winners);
  EXPECT_EQ(second.baselines, first.baselines);
  auto s = r4::db::Store::open_read_only(dir + "/o.db");
  EXPECT_EQ(s.integrity_check(), "ok");
}
