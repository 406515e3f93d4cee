// Runs a program to completion and captures what it prints: the offline AMD compiler
// (clang_hip.cpp) runs clang++-19 and llvm-objdump-19 this way. posix_spawn, not fork: it is
// called from the compile pool's threads.
#pragma once

#include <string>
#include <vector>

namespace r4::gpu {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status; -1 if it could not start or died on a signal
  int signal = 0;      // the signal that ended it, else 0
  std::string output;  // stdout and stderr, interleaved as written
};

// argv[0] is looked up on PATH when it has no '/'. `cwd` empty: the caller's folder. Throws
// Error only when the pipe or the spawn itself fails for a reason other than a missing program
// (then exit_code is -1 and output says why).
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::string& cwd = {});

// The absolute path of `name` found on PATH, or empty.
[[nodiscard]] std::string find_on_path(const std::string& name);

}  // namespace r4::gpu
