// Work stealing across MPI ranks (tuner/tune/remote_queue.hpp) without MPI: "rank 0" is a thread
// answering requests from a RaceQueue, "rank 1" a RemoteQueue whose requests travel as JSON, as
// they do through CBOR between ranks. Every race is taken exactly once over all workers, a free
// worker keeps taking while races are left (no split decided up front), a race that throws is
// retried once where it threw, and stop() wakes a worker waiting for an answer.
#include "tuner/tune/remote_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace r4::tune {
namespace {

std::vector<RaceJob> some_jobs(int n, std::size_t shapes) {
  std::vector<RaceJob> jobs;
  for (int i = 0; i < n; ++i)
    jobs.push_back({0, static_cast<std::size_t>(i) % shapes, i, 100.0 - i, i < 2, i == 0, false});
  return jobs;
}

// Rank 0's MPI thread: answers each request through answer_take, as mpi_dispatch.cpp does.
class Root {
 public:
  explicit Root(std::vector<RaceJob> jobs) : queue(std::move(jobs)) {}
  void ask(nlohmann::json request) {
    std::lock_guard lock(mu_);
    requests_.push_back(std::move(request));
    cv_.notify_all();
  }
  // Serves `remote` until told to end.
  void serve(RemoteQueue& remote) {
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return end_ || !requests_.empty(); });
      if (requests_.empty()) return;
      auto r = std::move(requests_.front());
      requests_.pop_front();
      lock.unlock();
      ASSERT_EQ(r.at("type"), "take");
      remote.deliver(nlohmann::json::parse(answer_take(queue, r).dump()));
    }
  }
  void end() {
    std::lock_guard lock(mu_);
    end_ = true;
    cv_.notify_all();
  }
  RaceQueue queue;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<nlohmann::json> requests_;
  bool end_ = false;
};

}  // namespace

TEST(RemoteQueue, JobsTravelExactly) {
  const RaceJob j{2, 5, 48, 1.25e9, true, false, true};
  const RaceJob back = race_job_from_json(nlohmann::json::parse(to_json(j).dump()));
  EXPECT_EQ(back.group, j.group);
  EXPECT_EQ(back.shape, j.shape);
  EXPECT_EQ(back.m, j.m);
  EXPECT_EQ(back.cost, j.cost);
  EXPECT_EQ(back.first_of_shape, j.first_of_shape);
  EXPECT_EQ(back.first_of_group, j.first_of_group);
  EXPECT_EQ(back.retried, j.retried);
  RemoteQueue q([](nlohmann::json) {});
  EXPECT_THROW(q.deliver(nlohmann::json::array()), std::invalid_argument);
}

TEST(RemoteQueue, WorkersOnBothSidesTakeEveryRaceOnceWhateverTheirSpeed) {
  constexpr int kJobs = 60;
  Root root(some_jobs(kJobs, 4));
  RemoteQueue remote([&](nlohmann::json r) { root.ask(std::move(r)); });
  std::thread server([&] { root.serve(remote); });
  std::mutex mu;
  std::multiset<int> taken;
  std::atomic<int> by_root{0}, by_remote{0};
  // Rank 0's worker is slow (each race "takes" 2 ms), rank 1's two workers fast: a split decided
  // up front would leave rank 1 idle; stealing gives it most of the races.
  const auto worker = [&](RaceSource& src, std::atomic<int>& count, int ms) {
    std::optional<std::size_t> shape;
    while (auto j = src.take(0, shape)) {
      shape = j->shape;
      {
        std::lock_guard lock(mu);
        taken.insert(j->m);
      }
      ++count;
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  };
  {
    std::jthread a([&] { worker(root.queue, by_root, 20); });
    std::jthread b([&] { worker(remote, by_remote, 1); });
    std::jthread c([&] { worker(remote, by_remote, 1); });
  }
  EXPECT_FALSE(remote.take(1, std::nullopt)) << "no jobs of group 1 anywhere";
  root.end();
  server.join();
  ASSERT_EQ(taken.size(), static_cast<std::size_t>(kJobs));
  for (int m = 0; m < kJobs; ++m) EXPECT_EQ(taken.count(m), 1u) << "race " << m;
  EXPECT_GT(by_remote.load(), 3 * by_root.load()) << "the fast rank took the races left";
}

TEST(RemoteQueue, RetriesOnceWhereItThrewAndStopWakesAWaitingWorker) {
  std::atomic<int> asked{0};
  RemoteQueue q([&](nlohmann::json) { ++asked; });
  RaceJob j{0, 1, 8, 5, true, true, false};
  EXPECT_TRUE(q.retry(j));
  EXPECT_EQ(q.waiting(), 1u);
  const auto again = q.take(0, std::nullopt);  // taken here, without asking rank 0
  ASSERT_TRUE(again);
  EXPECT_EQ(asked.load(), 0);
  EXPECT_TRUE(again->retried);
  EXPECT_FALSE(again->first_of_shape);
  EXPECT_FALSE(again->first_of_group);
  EXPECT_FALSE(q.retry(*again)) << "the second failure gives it up";
  // A worker waiting for rank 0's answer when rank 0 says stop takes nothing.
  std::optional<RaceJob> got = RaceJob{};
  std::thread w([&] { got = q.take(0, std::nullopt); });
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (asked.load() > 0) break;
  }
  q.stop();
  w.join();
  EXPECT_FALSE(got);
  EXPECT_FALSE(q.take(0, std::nullopt));
}

}  // namespace r4::tune
