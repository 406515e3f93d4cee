#include "tuner/worker/orphan_guard.hpp"

#include <unistd.h>

#include <thread>

namespace r4::worker {

void exit_when_orphaned(std::chrono::milliseconds period) {
  const pid_t parent = ::getppid();
  if (parent <= 1) return;
  std::thread([parent, period] {
    for (;;) {
      std::this_thread::sleep_for(period);
      // _exit: the main thread may be blocked in the driver API; no destructors, no flushing of
      // streams whose reader is gone.
      if (::getppid() != parent) ::_exit(kOrphanExit);
    }
  }).detach();
}

}  // namespace r4::worker
