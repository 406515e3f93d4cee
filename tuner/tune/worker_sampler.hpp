// The worker as the race's sampler (tuner/tune/race.hpp): one `sample` request per sample, or one
// `sample_many` request per round.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "tuner/tune/race.hpp"
#include "tuner/worker/process.hpp"

namespace r4::tune {

class WorkerSampler final : public Sampler {
 public:
  // The sampled entry (a worker entry index) faulted, hung or failed.
  struct Failure {
    std::size_t entry;
    std::string detail;
  };
  // A round as one request (the worker enqueues the samples back to back). If the worker dies
  // or fails during a round, which entry did it is unknown: RoundFailure makes the sweep race
  // again one sample per request (set_single), so the culprit is named (Failure) and only it is
  // dropped.
  struct RoundFailure {
    std::string detail;
  };

  WorkerSampler(worker::WorkerProcess& w, std::chrono::milliseconds deadline)
      : w_(w), deadline_(deadline) {}
  [[nodiscard]] double sample(std::size_t entry, bool whole_pool) override;
  [[nodiscard]] std::vector<double> sample_round(const std::vector<std::size_t>& entries,
                                                 bool whole_pool) override;
  [[nodiscard]] double device_seconds() const override { return seconds_; }
  void set_copies(int c) { copies_ = c; }
  void set_single(bool s) { single_ = s; }

 private:
  worker::WorkerProcess& w_;
  std::chrono::milliseconds deadline_;
  double seconds_ = 0;
  int copies_ = 1;
  bool single_ = false;
};

}  // namespace r4::tune
