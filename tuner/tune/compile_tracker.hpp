// Which of a plan's units the compile stage has finished, for races that start while it still
// runs (the sweep overlaps compiling with racing: docs/TUNER.md "Compile and race overlap"). The
// compile stage's thread marks units done once their fields (ok, compile_id, binary_path) are
// set; a race waits until every unit it needs is done. The mutex hand-off is what makes those
// fields safe to read on the racing thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

namespace r4::tune {

class CompileTracker {
 public:
  explicit CompileTracker(std::size_t units) : done_(units, false) {}

  // The compile stage's thread: unit i's fields are final.
  void done(std::size_t unit);
  // The compile stage's thread: it ended (every unit done) or threw (`error`).
  void finish(std::exception_ptr error = nullptr);

  // Whether every unit of `needed` is done; rethrows the stage's error once it failed.
  [[nodiscard]] bool ready(const std::vector<std::size_t>& needed) const;
  // Blocks until every unit of `needed` is done; rethrows the stage's error.
  void wait(const std::vector<std::size_t>& needed) const;
  // Blocks until another unit is done than when `seen` was returned (or the stage ends); returns
  // the new count. 0 the first time.
  std::size_t wait_progress(std::size_t seen) const;
  [[nodiscard]] bool finished() const;
  // Blocks until the stage ended; rethrows its error.
  void wait_finished() const;

  // A race starts (its units are compiled): the first call is kept, with how many units were
  // done then, for the summary's overlap line.
  void race_started();
  struct FirstRace {
    bool started = false;
    std::chrono::steady_clock::time_point at;
    std::size_t units_done = 0;
  };
  [[nodiscard]] FirstRace first_race() const;

 private:
  [[nodiscard]] bool all_done(const std::vector<std::size_t>& needed) const;  // mu_ held
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<bool> done_;
  std::size_t count_ = 0;
  bool finished_ = false;
  std::exception_ptr error_;
  FirstRace first_race_;
};

}  // namespace r4::tune
