// The configs (compile ids) whose check timed out in a run, and where (the first shape and M it
// hung at), shared by every GPU lane of its device group as CheckedSet is (checked_set.hpp): a
// kernel that hangs anywhere must not win anywhere, and each further check of it would cost
// another --verify-timeout-ms and a worker restart (verify_stage.cpp skip_hung). With a map per
// lane (until session 43), a config that hung on one GPU was still checked, and could pass and
// win, at its other shapes on the group's other GPUs. Each device group gets its own (sweep.cpp);
// MPI ranks share a resumed run's entries at the start (share_runs), not those found as they go.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/store.hpp"

namespace r4::tune {

class HungSet {
 public:
  // Where `compile_id` hung, if it did.
  [[nodiscard]] std::optional<std::string> find(db::Id compile_id) const {
    std::lock_guard lock(mu_);
    const auto it = where_.find(compile_id);
    if (it == where_.end()) return std::nullopt;
    return it->second;
  }
  // Records a timeout; the first place a config hung is the one kept.
  void add(db::Id compile_id, std::string where) {
    std::lock_guard lock(mu_);
    where_.emplace(compile_id, std::move(where));
  }
  [[nodiscard]] std::vector<std::pair<db::Id, std::string>> items() const {
    std::lock_guard lock(mu_);
    return {where_.begin(), where_.end()};
  }

 private:
  mutable std::mutex mu_;
  std::map<db::Id, std::string> where_;
};

}  // namespace r4::tune
