// Device-code text the GPU layer itself carries (cmake/R4Embed.cmake): the stand-in HIP prelude
// of the offline AMD compiler (tuner/gpu/clang_hip_prelude.h).
#pragma once

#include <span>
#include <string_view>

namespace r4::gpu {

struct EmbeddedFile {
  std::string_view path;  // relative to the repository root
  std::string_view text;
};

[[nodiscard]] std::span<const EmbeddedFile> embedded_sources();

}  // namespace r4::gpu
