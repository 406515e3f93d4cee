// The miss counters. Process-wide by design (the brief's r4d::stats()): the one piece of global
// mutable state in r4d besides the per-device workspace registry (launch.cpp).
#include "r4d/stats.hpp"

#include <array>
#include <atomic>

#include "detail.hpp"

namespace r4d {
namespace {

std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(detail::Counter::count_)>
    g_counters{};

std::uint64_t get(detail::Counter c) {
  return g_counters[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
}

}  // namespace

void detail::bump(Counter c) {
  g_counters[static_cast<std::size_t>(c)].fetch_add(1, std::memory_order_relaxed);
}

Stats stats() {
  using detail::Counter;
  Stats s;
  s.lookups = get(Counter::lookups);
  s.hits = get(Counter::hits);
  s.unknown_shape = get(Counter::unknown_shape);
  s.m_out_of_range = get(Counter::m_out_of_range);
  s.invalid_config = get(Counter::invalid_config);
  s.launches = get(Counter::launches);
  s.pdl_launches = get(Counter::pdl_launches);
  s.refused = get(Counter::refused);
  s.not_compiled = get(Counter::not_compiled);
  s.not_initialised = get(Counter::not_initialised);
  s.pdl_unsupported = get(Counter::pdl_unsupported);
  return s;
}

void reset_stats() {
  for (auto& c : g_counters) c.store(0, std::memory_order_relaxed);
}

}  // namespace r4d
