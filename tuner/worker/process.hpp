// The isolated worker process that does all device work for a sweep (PRIOR_ART.md: an illegal
// memory access poisons the whole GPU context, pytorch #95542; reusing one worker across configs
// keeps the overhead near 1.5x, pytorch #96729). The driver talks to it with one JSON object per
// line each way; a job that outlives its deadline is killed (SIGKILL) together with its context,
// and the next job starts a fresh worker.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace r4::worker {

enum class JobStatus { ok, crashed, timed_out };

struct JobResult {
  JobStatus status = JobStatus::ok;
  nlohmann::json reply;  // the worker's answer when ok
  std::string detail;    // why it failed: the signal, the exit code, the last stderr lines
};

class WorkerProcess {
 public:
  // argv: the program and its arguments, e.g. {"/proc/self/exe", "worker"}.
  explicit WorkerProcess(std::vector<std::string> argv);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();

  // Sends one request and waits for one reply line. Starts the worker if it is not running;
  // on a crash or timeout the worker is gone afterwards and `restarts()` counts the next start.
  [[nodiscard]] JobResult call(const nlohmann::json& request, std::chrono::milliseconds deadline);
  void stop();
  [[nodiscard]] int starts() const { return starts_; }
  [[nodiscard]] bool running() const { return pid_ > 0; }

 private:
  [[nodiscard]] JobResult call_untraced(const nlohmann::json& request,
                                        std::chrono::milliseconds deadline);
  void start();
  void kill_now();
  std::string drain_stderr();

  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int err_child_ = -1;
  std::string buffer_;
  int starts_ = 0;
};

// The argv that re-runs this very binary as a worker.
[[nodiscard]] std::vector<std::string> self_worker_argv();

}  // namespace r4::worker
