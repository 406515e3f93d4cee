// SHA-256, for the compile cache key and device fingerprints: stable across builds, platforms and
// releases, which std::hash is not. Not used for anything security-related.
#pragma once

#include <string>
#include <string_view>

namespace r4::db {

// Lower-case hex digest of `data`.
[[nodiscard]] std::string sha256_hex(std::string_view data);

}  // namespace r4::db
