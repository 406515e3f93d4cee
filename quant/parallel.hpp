// parallel_for over [0, n) on all cores with std::thread: contiguous ranges, one per thread, so
// each thread walks whole rows and keeps its scratch on its own stack. Exceptions in a worker are
// rethrown on the caller. Small jobs (n < min_per_thread * 2) run inline.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace r4::quant {

[[nodiscard]] inline unsigned worker_count() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1U : hc;
}

// f(begin, end) is called on disjoint ranges covering [0, n).
template <class F>
void parallel_for(std::int64_t n, F&& f, std::int64_t min_per_thread = 1) {
  if (n <= 0) return;
  const auto max_threads = static_cast<std::int64_t>(worker_count());
  const std::int64_t threads =
      std::clamp<std::int64_t>(n / std::max<std::int64_t>(min_per_thread, 1), 1, max_threads);
  if (threads == 1) {
    f(std::int64_t{0}, n);
    return;
  }
  std::exception_ptr error;
  std::mutex mu;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t b = n * t / threads;
    const std::int64_t e = n * (t + 1) / threads;
    pool.emplace_back([&, b, e] {
      try {
        f(b, e);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace r4::quant
