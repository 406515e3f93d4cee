// DeviceInfo <-> JSON, for `r4tune devices --json` and the database's device rows.
#pragma once

#include <nlohmann/json.hpp>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

[[nodiscard]] nlohmann::json to_json(const DeviceInfo& d);

}  // namespace r4::gpu
