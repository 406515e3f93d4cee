// A map that the GPU lanes of one device group share through a shared_ptr (sweep.cpp makes one
// per group): every access takes its mutex, and nothing is held across calls, so a caller's
// find-then-set is two steps (checked_set.hpp and hung_set.hpp say why that is enough for them).
// CheckedSet and HungSet are this template with their own key and value.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace r4::tune {

template <class K, class V>
class LockedMap {
 public:
  using Key = K;

  [[nodiscard]] std::optional<V> find(const K& key) const {
    std::lock_guard lock(mu_);
    const auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  // Stores `value` for `key`, over any value it had.
  void set(const K& key, V value) {
    std::lock_guard lock(mu_);
    map_[key] = std::move(value);
  }
  // Stores `value` for `key` unless it has one: the first value is the one kept.
  void add(const K& key, V value) {
    std::lock_guard lock(mu_);
    map_.emplace(key, std::move(value));
  }
  // A copy of the entries in key order.
  [[nodiscard]] std::vector<std::pair<K, V>> items() const {
    std::lock_guard lock(mu_);
    return {map_.begin(), map_.end()};
  }

 private:
  mutable std::mutex mu_;
  std::map<K, V> map_;
};

}  // namespace r4::tune
