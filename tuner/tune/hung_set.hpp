// The configs (compile ids) whose check timed out in a run, and where (the first shape and M it
// hung at), shared by every GPU lane of its device group as CheckedSet is (checked_set.hpp): a
// kernel that hangs anywhere must not win anywhere, and each further check of it would cost
// another --verify-timeout-ms and a worker restart (verify_stage.cpp skip_hung). With a map per
// lane (until session 43), a config that hung on one GPU was still checked, and could pass and
// win, at its other shapes on the group's other GPUs. Each device group gets its own (sweep.cpp);
// MPI ranks share a resumed run's entries at the start (share_runs), not those found as they go.
#pragma once

#include <string>

#include "db/store.hpp"
#include "tuner/tune/locked_map.hpp"

namespace r4::tune {

// find -> where the config hung; add(compile_id, where) records a timeout, the first place kept.
using HungSet = LockedMap<db::Id, std::string>;

}  // namespace r4::tune
