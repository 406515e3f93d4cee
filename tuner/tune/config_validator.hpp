// The database's ConfigValidator (db/store.hpp) backed by the kernel family's one is_valid
// (kernels/config.hpp): rows read back from the database go through the same predicate as the
// planner and the generated headers, generation and ST included.
#pragma once

#include "db/store.hpp"

namespace r4::tune {

// Accepts a row when its kernel is known, the run's device arch parses, and
// kernels::is_valid(kernel, config with its generation and ST, arch, {N, K, max(1, M)}) holds.
[[nodiscard]] db::ConfigValidator kernel_config_validator();

}  // namespace r4::tune
