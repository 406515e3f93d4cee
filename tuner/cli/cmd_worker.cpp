// r4tune worker: the sweep's isolated device process (tuner/worker/device_session.hpp). Not for
// people: the sweep starts it and talks JSON lines over its stdin/stdout.
#include <iostream>

#include "tuner/cli/command.hpp"
#include "tuner/worker/device_session.hpp"
#include "tuner/worker/orphan_guard.hpp"

namespace r4::cli {

int run_worker(std::span<const std::string>) {
  std::ios::sync_with_stdio(false);
  worker::exit_when_orphaned();  // a hung kernel must not outlive the sweep that started it
  return worker::serve(std::cin, std::cout, worker::device_handlers());
}

}  // namespace r4::cli
