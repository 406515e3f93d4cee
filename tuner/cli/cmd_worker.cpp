// r4tune worker: the sweep's isolated device process (tuner/worker/device_session.hpp). Not for
// people: the sweep starts it and talks JSON lines over its stdin/stdout.
#include <iostream>

#include "tuner/cli/command.hpp"
#include "tuner/worker/device_session.hpp"

namespace r4::cli {

int run_worker(std::span<const std::string>) {
  std::ios::sync_with_stdio(false);
  return worker::serve(std::cin, std::cout, worker::device_handlers());
}

}  // namespace r4::cli
