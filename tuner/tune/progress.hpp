// Progress for long phases: on a terminal one live line per phase (done / total, rate, ETA and a
// free-form status such as the best so far); plain log lines every few seconds otherwise;
// nothing with --quiet; one JSON object per update with --json (for tools driving r4tune).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace r4::tune {

enum class ProgressMode { live, plain, quiet, json };

// live when stderr is a terminal, else plain.
[[nodiscard]] ProgressMode default_progress_mode();

// A line that reports something as it happens (a check that crashed, hung or failed), from any
// thread and outside a Progress: on a terminal it clears the live line first (the next draw puts
// it back); nothing with --quiet; a JSON object {"event": line} with --json.
void progress_event(ProgressMode mode, const std::string& line);

class Progress {
 public:
  Progress(ProgressMode mode, std::string phase, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void advance(std::size_t n = 1, const std::string& status = {});
  void set_status(const std::string& status);
  void finish(const std::string& summary = {});
  // A message that must not be overwritten by the live line.
  void note(const std::string& line);

 private:
  void draw(bool force);
  ProgressMode mode_;
  std::string phase_;
  std::size_t total_, done_ = 0;
  std::string status_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool finished_ = false;
};

}  // namespace r4::tune
