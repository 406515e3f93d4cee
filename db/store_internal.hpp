// Helpers shared by the Store's source files (store*.cpp); not part of the Store's interface.
#pragma once

#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "db/rows.hpp"
#include "db/sqlite.hpp"

namespace r4::db::internal {

// Inserts samples as (key, seq, us) rows of `table`, seq from 0 in the given order.
inline void insert_samples(const Connection& c, const char* table, const char* key, Id id,
                           std::span<const double> samples) {
  auto s = c.prepare(fmt::format("INSERT INTO {}({}, seq, us) VALUES (?1, ?2, ?3)", table, key));
  for (std::size_t i = 0; i < samples.size(); ++i) {
    s.bind_all(id, static_cast<std::int64_t>(i), samples[i]).run();
    s.reset();
  }
}

// The first column of every row of `sql` (bound to ?1 = id), as doubles.
inline std::vector<double> read_samples(const Connection& c, const char* sql, Id id) {
  auto s = c.prepare(sql);
  s.bind(1, id);
  std::vector<double> out;
  while (s.step()) out.push_back(s.f64(0));
  return out;
}

// Validation shared by the inserts: why a value cannot be stored, or "" when it can.
// Times are finite and > 0 microseconds.
inline std::string time_problem(const char* name, double v) {
  if (!std::isfinite(v) || v <= 0) return fmt::format("{} = {} is not a positive time", name, v);
  return {};
}

// A 95% CI, where given, is two such times around the median: low <= median <= high (an
// order-statistics CI always holds its median; anything else is a swapped or shifted column).
inline std::string ci_problem(std::optional<double> lo, std::optional<double> hi,
                              std::optional<double> median) {
  for (auto [name, v] : {std::pair{"ci_low_us", lo}, std::pair{"ci_high_us", hi}})
    if (v)
      if (auto p = time_problem(name, *v); !p.empty()) return p;
  if (lo && hi && *lo > *hi)
    return fmt::format("ci_low_us = {} is above ci_high_us = {}", *lo, *hi);
  if (median && lo && *lo > *median)
    return fmt::format("ci_low_us = {} is above the median {}", *lo, *median);
  if (median && hi && *hi < *median)
    return fmt::format("ci_high_us = {} is below the median {}", *hi, *median);
  return {};
}

// Every sample is a time too.
inline std::string samples_problem(std::span<const double> samples) {
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (!std::isfinite(samples[i]) || samples[i] <= 0)
      return fmt::format("sample {} = {} is not a positive time", i, samples[i]);
  return {};
}

}  // namespace r4::db::internal
