// Isolation: a worker that faults, hangs or asks to be replaced does not end the driver, and
// the next job runs in a fresh process.
#include "tuner/worker/process.hpp"

#include <gtest/gtest.h>

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
