// The kernel family's source files, embedded in the binary at build time (cmake/R4Embed.cmake).
// Paths are relative to the repository root, the same names the sources #include each other by.
#pragma once

#include <span>
#include <string_view>

namespace r4::kernels {

struct EmbeddedFile {
  std::string_view path;  // e.g. "kernels/nv/gemm_w4a16_nt.cu"
  std::string_view text;
};

[[nodiscard]] std::span<const EmbeddedFile> embedded_sources();

}  // namespace r4::kernels
