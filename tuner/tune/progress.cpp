#include "tuner/tune/progress.hpp"

#include <unistd.h>

#include <mutex>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace r4::tune {

ProgressMode default_progress_mode() {
  return ::isatty(STDERR_FILENO) ? ProgressMode::live : ProgressMode::plain;
}

void progress_event(ProgressMode mode, const std::string& line) {
  static std::mutex m;  // workers' threads report at once; one line each, whole
  if (mode == ProgressMode::quiet) return;
  const std::lock_guard<std::mutex> lock(m);
  if (mode == ProgressMode::json)
    fmt::print(stderr, "{}\n", nlohmann::json{{"event", line}}.dump());
  else
    fmt::print(stderr, "{}{}\n", mode == ProgressMode::live ? "\r\033[K" : "", line);
}

Progress::Progress(ProgressMode mode, std::string phase, std::size_t total)
    : mode_(mode),
      phase_(std::move(phase)),
      total_(total),
      start_(std::chrono::steady_clock::now()) {
  last_draw_ = start_ - std::chrono::hours(1);
  draw(true);
}

Progress::~Progress() {
  if (!finished_) finish();
}

void Progress::advance(std::size_t n, const std::string& status) {
  done_ += n;
  if (!status.empty()) status_ = status;
  draw(false);
}

void Progress::set_status(const std::string& status) {
  status_ = status;
  draw(false);
}

void Progress::note(const std::string& line) {
  if (mode_ == ProgressMode::quiet) return;
  if (mode_ == ProgressMode::json) {
    fmt::print(stderr, "{}\n", nlohmann::json{{"phase", phase_}, {"note", line}}.dump());
    return;
  }
  if (mode_ == ProgressMode::live) fmt::print(stderr, "\r\033[K");
  fmt::print(stderr, "{}\n", line);
  if (mode_ == ProgressMode::live) draw(true);
}

void Progress::draw(bool force) {
  if (mode_ == ProgressMode::quiet) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const auto since = now - last_draw_;
  const bool due = mode_ == ProgressMode::live ? since > std::chrono::milliseconds(100)
                                               : since > std::chrono::seconds(5);
  if (!force && !due && done_ != total_) return;
  last_draw_ = now;
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - std::min(done_, total_)) / rate : 0;
  if (mode_ == ProgressMode::json) {
    fmt::print(stderr, "{}\n",
               nlohmann::json{{"phase", phase_},
                              {"done", done_},
                              {"total", total_},
                              {"rate_per_s", rate},
                              {"eta_s", eta},
                              {"status", status_}}
                   .dump());
    return;
  }
  const std::string line = fmt::format("{:<8} {:>5}/{:<5} {:6.1f}/s  ETA {:5.0f} s  {}", phase_,
                                       done_, total_, rate, eta, status_);
  if (mode_ == ProgressMode::live)
    fmt::print(stderr, "\r\033[K{}", line.substr(0, 160));
  else
    fmt::print(stderr, "{}\n", line);
}

void Progress::finish(const std::string& summary) {
  if (finished_) return;
  finished_ = true;
  if (!summary.empty()) status_ = summary;
  draw(true);
  if (mode_ == ProgressMode::live) fmt::print(stderr, "\n");
}

}  // namespace r4::tune
