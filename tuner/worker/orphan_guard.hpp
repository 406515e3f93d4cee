// A worker outlives its driver only while it is stuck: it exits when its stdin closes, but a
// worker inside a kernel that never finishes never reads stdin again, and keeps the GPU busy for
// whatever runs next. Session 28's H200 call (docs/PERF.md "Session 29") killed a sweep with
// `timeout` in the middle of such a check and the next sweep then printed nothing for 150 s. So
// each worker watches its parent from a thread of its own and ends itself, at once, when the
// driver that started it is gone (its parent changes); its GPU context goes with it.
#pragma once

#include <chrono>

namespace r4::worker {

// The exit status of a worker that ended itself because its driver was gone.
inline constexpr int kOrphanExit = 125;

// Starts the watch (a detached thread polling getppid() every `period`); call once, early in
// main. Nothing is watched when the process's parent is already init (pid 1).
void exit_when_orphaned(std::chrono::milliseconds period = std::chrono::milliseconds(250));

}  // namespace r4::worker
