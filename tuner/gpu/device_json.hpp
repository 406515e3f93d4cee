// DeviceInfo <-> JSON, for `r4tune devices --json` and the database's device rows.
#pragma once

#include <nlohmann/json.hpp>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

[[nodiscard]] nlohmann::json to_json(const DeviceInfo& d);
// Inverse of to_json; throws nlohmann::json::exception on a malformed object.
[[nodiscard]] DeviceInfo device_from_json(const nlohmann::json& j);

}  // namespace r4::gpu
