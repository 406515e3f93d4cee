// Work stealing across MPI ranks: every rank's workers take their races from the one RaceQueue on
// rank 0, so a rank whose races ran short takes more instead of waiting. Before (2026-12-01) the
// races were split over the ranks up front by their estimated length, and the estimate is poor
// (docs/TUNER.md): on two H200s `mpirun -n 2` left rank 1 idle 12% of the run (1.54x against the
// 1.79x of one process driving both GPUs).
//
// RemoteQueue is a rank's side: take() sends a request (a "take" item through the rank's outbox,
// which the thread that talks MPI sends to rank 0) and waits for rank 0's answer, which that
// thread hands to deliver(). A race that throws is retried once on the rank where it threw, as
// on one host, and then given up. Rank 0 answers with answer_take() over its RaceQueue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/tune/race_queue.hpp"

namespace r4::tune {

[[nodiscard]] nlohmann::json to_json(const RaceJob& job);
[[nodiscard]] RaceJob race_job_from_json(const nlohmann::json& j);

// Rank 0's answer to a "take" request (from RemoteQueue::take): the race for that worker, or
// null when its group has none left.
[[nodiscard]] nlohmann::json answer_take(RaceSource& queue, const nlohmann::json& request);

class RemoteQueue final : public RaceSource {
 public:
  // `ask` sends a request to rank 0 (it must not block on the answer).
  explicit RemoteQueue(std::function<void(nlohmann::json)> ask) : ask_(std::move(ask)) {}
  [[nodiscard]] std::optional<RaceJob> take(std::size_t group,
                                            std::optional<std::size_t> shape) override;
  [[nodiscard]] bool retry(const RaceJob& job) override;
  void stop() override;
  [[nodiscard]] std::size_t waiting() const override;
  // Rank 0's answer (answer_take's), from the thread that talks MPI. Anything else is refused
  // with std::invalid_argument.
  void deliver(const nlohmann::json& answer);

 private:
  std::function<void(nlohmann::json)> ask_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::uint64_t next_ticket_ = 1;
  std::map<std::uint64_t, std::optional<RaceJob>> answers_;
  std::vector<RaceJob> retried_;  // races that threw here once, taken here first
  bool stopped_ = false;
};

}  // namespace r4::tune
