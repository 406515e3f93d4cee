// The sweep's run in the database: the device row (upserted), then a new run, or with --resume
// the newest unfinished run of the same spec on the same device, with what it already checked
// and raced loaded into the context so those are skipped.
#pragma once

#include <optional>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// Sets ctx.run (and with --resume ctx.checked and ctx.raced). Returns the exit code: 0, or 3
// when --resume finds no run to continue (said on stderr).
[[nodiscard]] int begin_or_resume_run(SweepContext& ctx,
                                      const std::optional<gpu::DeviceInfo>& device,
                                      gpu::Backend& backend);

}  // namespace r4::tune
