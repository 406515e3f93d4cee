// Times one call the way a decode step sees it: a graph of `copies` back-to-back launches, each
// on its own copy of the buffers (so each reads its weight from DRAM), replayed between two
// events; one sample = elapsed / copies. Launching inside a graph avoids the idle gaps in which
// per-call timing lets clocks drop (ROCm/vllm #928).
#pragma once

#include <functional>
#include <memory>

#include "tuner/gpu/backend.hpp"

namespace r4::measure {

class GraphTimer {
 public:
  // enqueue(i, stream) launches the call on copy i. Captured once, here.
  GraphTimer(gpu::Context& ctx, gpu::Stream& stream, int copies,
             const std::function<void(int, gpu::Stream&)>& enqueue);
  // Replays the graph `n` times without timing (clocks up, caches in their steady state).
  void warm_up(int n);
  // One sample: microseconds per call.
  [[nodiscard]] double sample_us();
  [[nodiscard]] int copies() const { return copies_; }
  // Device seconds spent in timed replays so far.
  [[nodiscard]] double device_seconds() const { return device_s_; }

 private:
  gpu::Stream& stream_;
  int copies_;
  std::unique_ptr<gpu::Graph> graph_;
  std::unique_ptr<gpu::Event> start_, stop_;
  double device_s_ = 0;
};

}  // namespace r4::measure
