// Placeholder for the NVIDIA `sm80` packer, which is owned by the kernels work and lands at merge
// time as quant/pack_sm80.cpp (with quant/layout/sm80.h). Until then pack()/unpack() link and
// fail loudly for this layout. Delete this file when pack_sm80.cpp is merged.
#include <stdexcept>

#include "quant/pack.hpp"

namespace r4::quant {

Packed pack_sm80(std::span<const std::int8_t>, std::span<const float>, std::int64_t, std::int64_t,
                 int) {
  throw std::logic_error("sm80 layout not merged yet");
}

void unpack_sm80(const Packed&, std::int64_t, std::int64_t, int, std::span<std::int8_t>,
                 std::span<float>) {
  throw std::logic_error("sm80 layout not merged yet");
}

}  // namespace r4::quant
