// What a sweep tells its user: the plan line (and estimate) before any work, the closing summary
// after it (counts, where the time went, the winners), or that summary as JSON with --json.
#pragma once

#include <optional>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/plan.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// On stderr unless quiet: the plan's sizes, how many configs the compile cache holds already,
// and a rough estimate of the compile and measure times.
void print_plan(const SweepContext& ctx, const Plan& plan,
                const std::optional<gpu::DeviceInfo>& device, gpu::Backend& backend);

// The run's counts, ceiling, phase times and winners on stdout: as JSON with --json, as text
// unless quiet.
void print_summary(const SweepContext& ctx);

}  // namespace r4::tune
