// gfx942 (CDNA3, MI300) MFMA: the kernel's fragment assembly (kernels/amd/mfma_gfx942.h) compiled
// for the host, driven by a mirror of the loop in kernels/amd/gemm_w4a{16,8}_nt_mfma.h, with the
// weight addresses from the layout header the kernels include (quant/layout/gfx942.h).
#include "tests/kernels/amd/host_shim.hpp"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kernels/amd/mfma_gfx942.h"
#pragma GCC diagnostic pop

#include "quant/layout/gfx942.h"
#include "quant/numeric.hpp"
#include "tests/kernels/amd/emulation.hpp"

namespace r4::emu {

InstrModel gfx942_model(Dtype d) {
  if (d == Dtype::i8) return model_of<r4amd::Gfx942Mfma16x16x32>("gfx942 v_mfma_i32_16x16x32_i8");
  return model_of<r4amd::Gfx942Mfma16x16x16>(d == Dtype::f16 ? "gfx942 v_mfma_f32_16x16x16_f16"
                                                             : "gfx942 v_mfma_f32_16x16x16_bf16");
}

std::vector<float> run_gfx942(const Problem& p, const InstrModel& im, std::string& why) {
  constexpr int kLanes = 64;
  const int KB = p.k / 64, G = p.k / 128, ntiles = p.n / 16;
  std::vector<float> out(static_cast<std::size_t>(p.m * p.n), 0.0f);
  const u32* wq = p.packed.wq.data();
  const u32* wsz = p.packed.wsz.data();
  const bool i8 = p.dtype == Dtype::i8;
  for (int m_base = 0; m_base < p.m; m_base += 16)
    for (int tile = 0; tile < ntiles; ++tile) {
      Frag acc = frag(kLanes, 4), iacc = frag(kLanes, 4);
      for (int kb = 0; kb < KB; ++kb) {
        const bool flush = (kb & 1) || kb + 1 == KB;
        for (int s = 0; s < (i8 ? 2 : 4); ++s) {  // k16 steps (f16/bf16) or k32 steps (i8)
          Frag a = frag(kLanes, i8 ? 8 : 4), b = frag(kLanes, i8 ? 8 : 4);
          for (int lane = 0; lane < kLanes; ++lane) {
            const int r = lane & 15;
            const int row = m_base + r;
            const u32* wl = wq + r4::layout::gfx942::lane_dword(tile, kb, KB, lane);
            const u32 sdw = wsz[(static_cast<std::size_t>(tile) * G + (kb >> 1)) * 16 + r];
            auto& bl = b[static_cast<std::size_t>(lane)];
            auto& al = a[static_cast<std::size_t>(lane)];
            if (i8) {
              const auto bv = static_cast<unsigned long long>(r4amd::dequant_b_s8(wl[s]));
              unsigned long long av = 0;
              if (row < p.m)
                av = static_cast<unsigned long long>(r4amd::load_a8(
                    p.a8.data() + static_cast<std::size_t>(row) * p.k + kb * 64 + 32 * s, lane));
              for (int e = 0; e < 8; ++e) {
                bl[e] = static_cast<std::int8_t>((bv >> (8 * e)) & 0xFFu);
                al[e] = static_cast<std::int8_t>((av >> (8 * e)) & 0xFFu);
              }
            } else {
              r4amd::v4s av{};
              if (row < p.m)
                av = r4amd::load_a16(p.a16.data() + static_cast<std::size_t>(row) * p.k + kb * 64 + 16 * s, lane);
              if (p.dtype == Dtype::f16) {
                const r4amd::v4h bv = r4amd::dequant_b_f16(
                    wl[s >> 1], s & 1, __builtin_bit_cast(_Float16, static_cast<u16>(sdw & 0xFFFFu)));
                const r4amd::v4h ah = __builtin_bit_cast(r4amd::v4h, av);
                for (int e = 0; e < 4; ++e) {
                  bl[e] = static_cast<double>(bv[e]);
                  al[e] = static_cast<double>(ah[e]);
                }
              } else {
                const r4amd::v4s bv = r4amd::dequant_b_bf16(
                    wl[s >> 1], s & 1, quant::f16_bits_to_f32(static_cast<u16>(sdw & 0xFFFFu)));
                for (int e = 0; e < 4; ++e) {
                  bl[e] = quant::bf16_bits_to_f32(static_cast<u16>(bv[e]));
                  al[e] = quant::bf16_bits_to_f32(static_cast<u16>(av[e]));
                }
              }
            }
          }
          if (!mma(im, a, b, i8 ? iacc : acc, why)) return {};
        }
        if (i8 && flush) {
          for (int lane = 0; lane < kLanes; ++lane) {
            const u32 sdw = wsz[(static_cast<std::size_t>(tile) * G + (kb >> 1)) * 16 + (lane & 15)];
            const float ws16 = quant::f16_bits_to_f32(static_cast<u16>(sdw & 0xFFFFu)) * 0.0625f;
            for (int i = 0; i < 4; ++i) {
              auto& x = acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              auto& y = iacc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
              x = static_cast<float>(x) + static_cast<float>(y) * ws16;
              y = 0;
            }
          }
        }
      }
      for (int lane = 0; lane < kLanes; ++lane)
        for (int i = 0; i < 4; ++i) {
          const int m = m_base + r4amd::c_row(lane, i);
          const int n = tile * 16 + (lane & 15);
          if (m >= p.m) continue;
          double v = acc[static_cast<std::size_t>(lane)][static_cast<std::size_t>(i)];
          if (i8) v *= p.sa[static_cast<std::size_t>(m)];
          out[static_cast<std::size_t>(m) * p.n + n] = static_cast<float>(v);
        }
    }
  return out;
}

}  // namespace r4::emu
