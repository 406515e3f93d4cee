// Isolation: a worker that faults, hangs or asks to be replaced does not end the driver, and
// the next job runs in a fresh process.
#include "tuner/worker/process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tuner/worker/orphan_guard.hpp"

namespace r4::worker {

namespace {
using std::chrono::milliseconds;
WorkerProcess make() {
  return WorkerProcess({std::string(R4_BINARY_ROOT) + "/tests/tuner/fake_worker"});
}
}  // namespace

TEST(WorkerProcess, AnswersAndKeepsOneProcessAcrossJobs) {
  auto w = make();
  auto a = w.call({{"op", "pid"}}, milliseconds(5000));
  auto b = w.call({{"op", "echo"}, {"value", 42}}, milliseconds(5000));
  auto c = w.call({{"op", "pid"}}, milliseconds(5000));
  ASSERT_EQ(a.status, JobStatus::ok) << a.detail;
  EXPECT_EQ(b.reply["value"], 42);
  EXPECT_EQ(a.reply["pid"], c.reply["pid"]);
  EXPECT_EQ(w.starts(), 1);
}

TEST(WorkerProcess, ACrashIsReportedAndTheNextJobGetsAFreshWorker) {
  auto w = make();
  auto before = w.call({{"op", "pid"}}, milliseconds(5000));
  auto crash = w.call({{"op", "segv"}}, milliseconds(5000));
  EXPECT_EQ(crash.status, JobStatus::crashed);
  EXPECT_NE(crash.detail.find("killed by signal"), std::string::npos) << crash.detail;
  EXPECT_NE(crash.detail.find("about to fault"), std::string::npos) << crash.detail;
  auto after = w.call({{"op", "pid"}}, milliseconds(5000));
  ASSERT_EQ(after.status, JobStatus::ok);
  EXPECT_NE(before.reply["pid"], after.reply["pid"]);
  EXPECT_EQ(w.starts(), 2);
}

TEST(WorkerProcess, AHangIsKilledAtTheDeadline) {
  auto w = make();
  const auto t0 = std::chrono::steady_clock::now();
  auto hang = w.call({{"op", "sleep"}, {"ms", 60000}}, milliseconds(300));
  EXPECT_EQ(hang.status, JobStatus::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_FALSE(w.running());
  EXPECT_EQ(w.call({{"op", "echo"}, {"value", 1}}, milliseconds(5000)).status, JobStatus::ok);
}

// A driver killed (SIGKILL: no destructor runs) while its worker is stuck in a job, as a worker
// stuck in a kernel that never finishes: the worker sees its parent change and ends itself
// (tuner/worker/orphan_guard.hpp) instead of sleeping on for a minute. This test process is made a
// child subreaper, so the orphan is reparented to it and can be waited for here.
TEST(WorkerProcess, AStuckWorkerEndsWhenItsDriverIsKilled) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t driver = ::fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {  // the driver: starts a worker, says its pid, then waits on a long job
    ::close(fds[0]);
    auto w = make();
    const auto p = w.call({{"op", "pid"}}, milliseconds(5000));
    const int pid = p.status == JobStatus::ok ? p.reply["pid"].get<int>() : -1;
    (void)!::write(fds[1], &pid, sizeof pid);
    (void)w.call({{"op", "sleep"}, {"ms", 60000}}, milliseconds(120000));
    ::_exit(0);
  }
  ::close(fds[1]);
  int worker_pid = -1;
  ASSERT_EQ(::read(fds[0], &worker_pid, sizeof worker_pid),
            static_cast<ssize_t>(sizeof worker_pid));
  ::close(fds[0]);
  ASSERT_GT(worker_pid, 0);
  ::usleep(300 * 1000);  // the sleep job is under way
  ::kill(driver, SIGKILL);
  int st = 0;
  ASSERT_EQ(::waitpid(driver, &st, 0), driver);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t got = 0;
  while (got == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    got = ::waitpid(worker_pid, &st, WNOHANG);
    if (got == 0) ::usleep(50 * 1000);
  }
  if (got == 0) ::kill(worker_pid, SIGKILL);  // do not leave it behind when the check fails
  ASSERT_EQ(got, worker_pid) << "the orphaned worker was still running after 10 s";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), kOrphanExit);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST(WorkerProcess, HandlerErrorsAndFatalRepliesAndStrayOutput) {
  auto w = make();
  auto t = w.call({{"op", "throw"}}, milliseconds(5000));
  ASSERT_EQ(t.status, JobStatus::ok);
  EXPECT_EQ(t.reply["ok"], false);
  EXPECT_EQ(t.reply["error"], "boom");
  auto u = w.call({{"op", "nope"}}, milliseconds(5000));
  EXPECT_NE(u.reply["error"].get<std::string>().find("unknown op"), std::string::npos);
  auto f = w.call({{"op", "fatal"}}, milliseconds(5000));
  EXPECT_EQ(f.reply["fatal"], true);
  auto n = w.call({{"op", "noise"}}, milliseconds(5000));
  ASSERT_EQ(n.status, JobStatus::ok) << n.detail;  // the worker exited after "fatal"; restarted
  EXPECT_EQ(n.reply["value"], 1);
  EXPECT_EQ(w.starts(), 2);
}

TEST(WorkerProcess, AMissingBinaryIsACrashNotAnException) {
  WorkerProcess w({"/no/such/worker"});
  auto r = w.call({{"op", "pid"}}, milliseconds(2000));
  EXPECT_EQ(r.status, JobStatus::crashed);
  EXPECT_NE(r.detail.find("exec of the worker failed"), std::string::npos) << r.detail;
}

}  // namespace r4::worker
