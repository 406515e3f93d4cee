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
#include <tuple>

#include "db/store.hpp"
#include "tuner/tune/locked_map.hpp"

namespace r4::tune {

// find -> the check's result, set(key, passed) after a check.
using CheckedSet = LockedMap<std::tuple<db::Id, std::int64_t, std::int64_t, int>, bool>;

}  // namespace r4::tune
