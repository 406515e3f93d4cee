// The driver's handle on one worker process (tuner/worker/process.hpp) and the device it opened.
// The driver never touches the GPU itself: the worker opens it, measures the ceiling and does all
// device work, so a faulting kernel can only take the worker down. A worker that died is started
// again on the next call: it reopens its device and re-creates the current shape's pool first.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/worker/process.hpp"

namespace r4::tune {

class SweepWorker {
 public:
  // argv: the worker command (empty: this binary's `worker` subcommand); device: its index.
  SweepWorker(const std::vector<std::string>& argv, int device);

  // The first request: open the device and measure its streaming-read ceiling.
  [[nodiscard]] worker::JobResult open_measuring_ceiling();
  // Sets up a shape's pool now (the `shape` request) and again after any restart.
  void set_shape(nlohmann::json request);
  // One request, after restarting the worker if it died. A worker failure reads as
  // {"ok": false, "error": detail}; `raw` gets the job's own result.
  [[nodiscard]] nlohmann::json call(const nlohmann::json& request, int timeout_ms,
                                    worker::JobResult* raw = nullptr);
  // The process itself, for requests that must not restart it (a race's samples).
  [[nodiscard]] worker::WorkerProcess& process() { return *process_; }
  void stop() { process_->stop(); }

 private:
  void ensure();

  std::unique_ptr<worker::WorkerProcess> process_;
  int device_;
  int generation_ = -1;  // the worker start count our setup was sent to
  nlohmann::json shape_request_;
  bool shape_sent_ = false;
};

}  // namespace r4::tune
