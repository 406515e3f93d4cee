#include "tuner/tune/sweep_worker.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

namespace r4::tune {

using nlohmann::json;

SweepWorker::SweepWorker(const std::vector<std::string>& argv, int device)
    : process_(std::make_unique<worker::WorkerProcess>(argv.empty() ? worker::self_worker_argv()
                                                                    : argv)),
      device_(device) {}

worker::JobResult SweepWorker::open_measuring_ceiling() {
  auto r = process_->call({{"op", "open"}, {"device", device_}, {"ceiling", true}},
                          std::chrono::milliseconds(180000));
  if (r.status == worker::JobStatus::ok && r.reply.value("ok", false))
    generation_ = process_->starts();
  return r;
}

void SweepWorker::set_shape(json request) {
  shape_request_ = std::move(request);
  shape_sent_ = false;  // sent now
  ensure();
}

void SweepWorker::ensure() {
  if (generation_ == process_->starts() && process_->running() && shape_sent_) return;
  // A fresh worker (after a crash): open the device, re-create the shape's pool.
  const auto failed = [](const worker::JobResult& r) {
    if (r.status != worker::JobStatus::ok) return r.detail;
    if (!r.reply.value("ok", false)) return r.reply.value("error", std::string("error"));
    return std::string();
  };
  if (!process_->running() || generation_ != process_->starts()) {
    auto r = process_->call({{"op", "open"}, {"device", device_}, {"ceiling", false}},
                            std::chrono::milliseconds(120000));
    if (auto why = failed(r); !why.empty())
      throw std::runtime_error("the worker could not open the device: " + why);
    generation_ = process_->starts();
    shape_sent_ = false;
  }
  if (!shape_request_.is_null() && !shape_sent_) {
    auto r = process_->call(shape_request_, std::chrono::milliseconds(300000));
    if (auto why = failed(r); !why.empty())
      throw std::runtime_error("the worker could not set up the shape: " + why);
    shape_sent_ = true;
  }
}

json SweepWorker::call(const json& request, int timeout_ms, worker::JobResult* raw) {
  ensure();
  auto r = process_->call(request, std::chrono::milliseconds(timeout_ms));
  if (raw) *raw = r;
  if (r.status != worker::JobStatus::ok) return json{{"ok", false}, {"error", r.detail}};
  return r.reply;
}

}  // namespace r4::tune
