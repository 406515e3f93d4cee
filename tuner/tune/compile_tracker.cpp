#include "tuner/tune/compile_tracker.hpp"

namespace r4::tune {

void CompileTracker::done(std::size_t unit) {
  {
    std::lock_guard lock(mu_);
    if (!done_.at(unit)) ++count_;
    done_[unit] = true;
  }
  cv_.notify_all();
}

void CompileTracker::finish(std::exception_ptr error) {
  {
    std::lock_guard lock(mu_);
    finished_ = true;
    error_ = error;
  }
  cv_.notify_all();
}

bool CompileTracker::all_done(const std::vector<std::size_t>& needed) const {
  if (error_) std::rethrow_exception(error_);
  for (std::size_t i : needed)
    if (!done_.at(i)) return false;
  return true;
}

bool CompileTracker::ready(const std::vector<std::size_t>& needed) const {
  std::lock_guard lock(mu_);
  return all_done(needed);
}

void CompileTracker::wait(const std::vector<std::size_t>& needed) const {
  std::unique_lock lock(mu_);
  // A stage that finished without marking a needed unit (it cannot, but a hang is worse than a
  // message) ends the wait: the race then finds the unit not ok.
  cv_.wait(lock, [&] { return all_done(needed) || finished_; });
}

std::size_t CompileTracker::wait_progress(std::size_t seen) const {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] {
    if (error_) std::rethrow_exception(error_);
    return count_ != seen || finished_;
  });
  return count_;
}

bool CompileTracker::finished() const {
  std::lock_guard lock(mu_);
  return finished_;
}

void CompileTracker::wait_finished() const {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return finished_; });
  if (error_) std::rethrow_exception(error_);
}

void CompileTracker::race_started() {
  std::lock_guard lock(mu_);
  if (first_race_.started) return;
  first_race_ = {true, std::chrono::steady_clock::now(), count_};
}

CompileTracker::FirstRace CompileTracker::first_race() const {
  std::lock_guard lock(mu_);
  return first_race_;
}

}  // namespace r4::tune
