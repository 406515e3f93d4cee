// pack() / unpack() dispatch over the named layouts. The only place that names a per-layout
// packer, so a layout that is not linked yet (sm80 lands with the kernels) is one file away.
#include "quant/pack.hpp"

#include <stdexcept>

namespace r4::quant {

std::string_view to_string(Layout l) {
  switch (l) {
    case Layout::gfx12:
      return "gfx12";
    case Layout::sm80:
      return "sm80";
    case Layout::gfx942:
      return "gfx942";
  }
  return "?";
}

std::optional<Layout> parse_layout(std::string_view name) {
  if (name == "gfx12") return Layout::gfx12;
  if (name == "sm80") return Layout::sm80;
  if (name == "gfx942") return Layout::gfx942;
  return std::nullopt;
}

Packed pack(Layout layout, std::span<const std::int8_t> q, std::span<const float> scale,
            std::int64_t n, std::int64_t k, int group) {
  switch (layout) {
    case Layout::gfx12:
      return pack_gfx12(q, scale, n, k, group);
    case Layout::sm80:
      return pack_sm80(q, scale, n, k, group);
    case Layout::gfx942:
      return pack_gfx942(q, scale, n, k, group);
  }
  throw std::invalid_argument("pack: unknown layout");
}

void unpack(Layout layout, const Packed& p, std::int64_t n, std::int64_t k, int group,
            std::span<std::int8_t> q_out, std::span<float> scale_out) {
  switch (layout) {
    case Layout::gfx12:
      unpack_gfx12(p, n, k, group, q_out, scale_out);
      return;
    case Layout::sm80:
      unpack_sm80(p, n, k, group, q_out, scale_out);
      return;
    case Layout::gfx942:
      unpack_gfx942(p, n, k, group, q_out, scale_out);
      return;
  }
  throw std::invalid_argument("unpack: unknown layout");
}

}  // namespace r4::quant
