// Times one call the way a decode step sees it: a graph of back-to-back launches, each on its own
// copy of the buffers (so each reads its weight from DRAM), replayed between two events; one
// sample = elapsed / launches. Launching inside a graph avoids the idle gaps in which per-call
// timing lets clocks drop (ROCm/vllm #928).
//
// A timer covers copies [first, first + count) of a pool: the sweep screens candidates on slices
// of the pool and re-measures finalists over all of it (docs/TUNER.md, "Measuring").
#pragma once

#include <functional>
#include <memory>

#include "tuner/gpu/backend.hpp"

namespace r4::measure {

class GraphTimer {
 public:
  // enqueue(i, stream) launches the call on copy i, for i in [first, first + count). Captured once,
  // here, then uploaded (so no timed replay pays for the upload; where the runtime cannot upload
  // ahead, `uploaded()` is false and the caller must replay once before timing).
  GraphTimer(gpu::Context& ctx, gpu::Stream& stream, int first, int count,
             const std::function<void(int, gpu::Stream&)>& enqueue);
  GraphTimer(gpu::Context& ctx, gpu::Stream& stream, int copies,
             const std::function<void(int, gpu::Stream&)>& enqueue)
      : GraphTimer(ctx, stream, 0, copies, enqueue) {}
  // Replays the graph `n` times without timing (clocks up, caches in their steady state).
  void warm_up(int n);
  // One replay, enqueued without waiting for it (warm-up overlapped with host work).
  void launch_untimed();
  // One sample: microseconds per call.
  [[nodiscard]] double sample_us();
  // The same in two steps, so that many timers' samples can be enqueued back to back and
  // collected with one wait (no host gap between them): enqueue_timed() records the events around
  // one replay; collect_us() waits for it and returns microseconds per call.
  void enqueue_timed();
  [[nodiscard]] double collect_us();
  [[nodiscard]] int copies() const { return count_; }
  [[nodiscard]] bool uploaded() const { return uploaded_; }

 private:
  gpu::Stream& stream_;
  int count_;
  bool uploaded_ = false;
  std::unique_ptr<gpu::Graph> graph_;
  std::unique_ptr<gpu::Event> start_, stop_;
};

}  // namespace r4::measure
