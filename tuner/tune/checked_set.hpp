// The checks a run has made, (compile id, N, K, M) -> passed, shared by every GPU lane of its
// device group. Each lane races on its own copy of the group's SweepContext (host_dispatch.cpp),
// and a race that throws on one lane is queued again and may be taken by another: with a map per
// lane, that lane checked the race's configs a second time and the run stored every such check
// twice (the crash test's 60 checks against 48, a fresh-clone run on two cores, session 42).
// Copies of a context share the set; each device group gets its own (sweep.cpp), since two groups
// of one arch share compile ids but not runs. A key is checked by one lane at a time (a race's
// (N, K, M) is in it, and a retry starts after the failed attempt has ended), so find-then-set
// needs no lock across the check itself.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "db/store.hpp"

namespace r4::tune {

class CheckedSet {
 public:
  using Key = std::tuple<db::Id, std::int64_t, std::int64_t, int>;

  [[nodiscard]] std::optional<bool> find(const Key& key) const {
    std::lock_guard lock(mu_);
    const auto it = passed_.find(key);
    if (it == passed_.end()) return std::nullopt;
    return it->second;
  }
  void set(const Key& key, bool pass) {
    std::lock_guard lock(mu_);
    passed_[key] = pass;
  }
  [[nodiscard]] std::vector<std::pair<Key, bool>> items() const {
    std::lock_guard lock(mu_);
    return {passed_.begin(), passed_.end()};
  }

 private:
  mutable std::mutex mu_;
  std::map<Key, bool> passed_;
};

}  // namespace r4::tune
