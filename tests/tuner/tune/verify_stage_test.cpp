// A check's outcome from the worker's answer (tuner/tune/verify_stage.hpp): a dead or silent
// worker is the kernel's fault or timeout, never a pass; only an answered `pass` is timed.
#include "tuner/tune/verify_stage.hpp"

#include <gtest/gtest.h>

namespace r4::tune {

namespace {

using nlohmann::json;

worker::JobResult job(worker::JobStatus s, std::string detail = {}) {
  worker::JobResult r;
  r.status = s;
  r.detail = std::move(detail);
  return r;
}

}  // namespace

TEST(CheckOutcome, AWorkerThatDiedOrHungIsAFaultOrATimeout) {
  const json failed = {{"ok", false}, {"error", "killed by signal 11"}};
  const auto crashed =
      check_outcome(job(worker::JobStatus::crashed, "killed by signal 11"), failed);
  EXPECT_EQ(crashed.status, db::CheckStatus::fault);
  EXPECT_EQ(crashed.detail, "killed by signal 11");
  const auto hung =
      check_outcome(job(worker::JobStatus::timed_out, "no answer within 1500 ms"), failed);
  EXPECT_EQ(hung.status, db::CheckStatus::timeout);
  EXPECT_EQ(hung.detail, "no answer within 1500 ms");
}

TEST(CheckOutcome, AnErrorIsNotRunUnlessTheWorkerCallsItFatal) {
  const auto ok = job(worker::JobStatus::ok);
  const auto soft = check_outcome(ok, {{"ok", false}, {"error", "no such binary"}});
  EXPECT_EQ(soft.status, db::CheckStatus::not_run);
  EXPECT_EQ(soft.detail, "no such binary");
  const auto fatal = check_outcome(ok, {{"ok", false}, {"fatal", true}});
  EXPECT_EQ(fatal.status, db::CheckStatus::fault);
  EXPECT_EQ(fatal.detail, "verify failed");
}

TEST(CheckOutcome, AnAnsweredCheckPassesOrIsAWrongResult) {
  const auto ok = job(worker::JobStatus::ok);
  const auto pass = check_outcome(ok, {{"ok", true}, {"pass", true}, {"max_ratio", 0.25}});
  EXPECT_EQ(pass.status, db::CheckStatus::pass);
  ASSERT_TRUE(pass.max_error.has_value());
  EXPECT_DOUBLE_EQ(*pass.max_error, 0.25);
  EXPECT_EQ(pass.tolerance, 1.0);
  const auto wrong =
      check_outcome(ok, {{"ok", true}, {"pass", false}, {"max_ratio", nullptr}, {"detail", "x"}});
  EXPECT_EQ(wrong.status, db::CheckStatus::wrong_result);
  EXPECT_FALSE(wrong.max_error.has_value());
  EXPECT_EQ(wrong.detail, "x");
}

}  // namespace r4::tune
