// The sweep's run in the database: the device row (upserted), then a new run, or with --resume
// the newest unfinished run of the same spec on the same device, with what it already checked
// and raced loaded into the context so those are skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tuner/gpu/backend.hpp"
#include "tuner/tune/sweep_context.hpp"

namespace r4::tune {

// Sets ctx.run (and with --resume ctx.checked and ctx.raced). Returns the exit code: 0, or 3
// when --resume finds no run to continue (said on stderr).
[[nodiscard]] int begin_or_resume_run(SweepContext& ctx,
                                      const std::optional<gpu::DeviceInfo>& device,
                                      gpu::Backend& backend);

// The device row of `device` (the same identity is the same row), for the `gpus` rows.
[[nodiscard]] db::Id record_device(SweepContext& ctx, const gpu::DeviceInfo& device,
                                   gpu::Backend& backend);

// For --resume: every unfinished run of this spec (the newest per device) started with another
// rank count whose device is not among `present` (this launch's devices rows): its races cannot
// be resumed by this launch. One line each, or empty.
[[nodiscard]] std::string unresumable_runs(const SweepContext& ctx,
                                           const std::vector<db::Id>& present);

}  // namespace r4::tune
