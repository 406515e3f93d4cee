#include "tuner/measure/graph_timer.hpp"

namespace r4::measure {

GraphTimer::GraphTimer(gpu::Context& ctx, gpu::Stream& stream, int first, int count,
                       const std::function<void(int, gpu::Stream&)>& enqueue)
    : stream_(stream), count_(count) {
  stream_.begin_capture();
  try {
    for (int i = first; i < first + count; ++i) enqueue(i, stream_);
  } catch (...) {
    (void)stream_.end_capture();
    throw;
  }
  graph_ = stream_.end_capture();
  // A graph not uploaded is uploaded by its first launch, in stream order: between the events of
  // the first sample, if nothing replays it before (CUDA driver API, cuGraphUpload).
  uploaded_ = graph_->upload(stream_);
  start_ = ctx.create_event();
  stop_ = ctx.create_event();
}

void GraphTimer::warm_up(int n) {
  for (int i = 0; i < n; ++i) graph_->launch(stream_);
  stream_.synchronize();
}

void GraphTimer::launch_untimed() {
  graph_->launch(stream_);
}

double GraphTimer::sample_us() {
  enqueue_timed();
  return collect_us();
}

void GraphTimer::enqueue_timed() {
  start_->record(stream_);
  graph_->launch(stream_);
  stop_->record(stream_);
}

double GraphTimer::collect_us() {
  stop_->synchronize();
  return stop_->elapsed_ms_since(*start_) * 1e3 / count_;
}

}  // namespace r4::measure
