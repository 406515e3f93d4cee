// Runs a compile in a forked child process and carries its CompileResult back through a pipe,
// so a compiler library that aborts (see backend_hip.cpp) cannot take r4tune down with it.
#pragma once

#include <functional>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

// The child's crash (signal) or lost result becomes ok=false with a log saying so.
[[nodiscard]] CompileResult compile_isolated(
    const CompileRequest& req, const std::function<CompileResult(const CompileRequest&)>& fn);

}  // namespace r4::gpu
