// quant/layout/gfx12.h must stand alone (it is also compiled by hipRTC / NVRTC with no std
// headers), so it is the first and only project include here, and its index map is checked at
// compile time against the seed's _KOFF = (0, 8, 1, 9, 2, 10, 3, 11).
#include "quant/layout/gfx12.h"

namespace {
namespace g = r4::layout::gfx12;
constexpr int kKoff[8] = {0, 8, 1, 9, 2, 10, 3, 11};
constexpr bool koff_matches() {
  for (int i = 0; i < 8; ++i)
    if (g::koff(i) != kKoff[i]) return false;
  return true;
}
static_assert(koff_matches());
// nibble i of a dword at lane half lh, step s is at k = 16 s + 4 lh + KOFF[i]; the inverse agrees.
constexpr bool inverse_matches() {
  for (int lh = 0; lh < 2; ++lh)
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < 8; ++i) {
        const int k = g::block_k(lh, s, i);
        if (g::wq_nibble(k) != i) return false;
        if (g::wq_dword(0, k, 64) != lh * 16 * 4 + s) return false;
      }
  return true;
}
static_assert(inverse_matches());
static_assert(g::kScaleHigh == 0xE408u);
}  // namespace

int gfx12_header_compiles_standalone() {
  return g::koff(1);
}
