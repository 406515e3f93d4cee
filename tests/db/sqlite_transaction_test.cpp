// Transactions of one connection on several threads (db/sqlite.hpp Connection::tx_mu_): each runs
// whole, one after another, nested ones included; none sees another's open transaction as its
// outer one. A clean-clone CI run of 2026-12-03 failed with "no such savepoint: r4_nested" when
// the sweep's compile thread and its dispatcher wrote through one connection at once.
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "db/sqlite.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

TEST(SqliteTransaction, ThreadsOnOneConnectionRunTheirTransactionsWhole) {
  testing::TempDir dir;
  const Connection c((dir.path() / "t.db").string(), OpenMode::read_write_create);
  c.exec("CREATE TABLE t (thread INTEGER, i INTEGER)");
  constexpr int kThreads = 4, kRounds = 200;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w)
    threads.emplace_back([&, w] {
      try {
        for (int i = 0; i < kRounds; ++i) {
          Transaction outer(c);
          c.exec("INSERT INTO t VALUES (" + std::to_string(w) + ", " + std::to_string(i) + ")");
          if (i % 3 == 0) {  // a nested one (a SAVEPOINT) on the same thread, rolled back
            Transaction inner(c);
            c.exec("INSERT INTO t VALUES (-1, -1)");
          }
          outer.commit();
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(w)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(c.query_text("SELECT count(*) FROM t WHERE thread >= 0"),
            std::to_string(kThreads * kRounds));
  EXPECT_EQ(c.query_text("SELECT count(*) FROM t WHERE thread < 0"), "0");
}

}  // namespace
}  // namespace r4::db
