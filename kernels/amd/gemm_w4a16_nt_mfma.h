// gemm_w4a16_nt for AMD CDNA3 MFMA (gfx942, wave64), included by kernels/gemm_w4a16_nt.cu.
// Weights in the `gfx942` layout (quant/layout/gfx942.h) are the B operand (16 columns n),
// activations the A operand (16 rows m), v_mfma_f32_16x16x16_f16 / _bf16 with f32 accumulators
// (4 per lane per 16x16 tile). Each wave streams its R4_NPW tiles one 64-K block at a time, one
// 8-byte load per lane per tile; the four k16 steps of a block are the two dwords' even and odd
// nibbles (kernels/amd/mfma_gfx942.h). A first, untuned version like the WMMA bodies: direct
// global loads, no LDS pipeline (the dynamic shared memory the host passes is unused). Same config
// meaning (WV counts 64-lane waves), grid and split-K epilogue as every other path.
// STATUS: compiled by CI with clang-19, fragment layouts emulated on the CPU, never run on an MI300.
R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * R4_WAVE)
    gemm_w4a16_nt(const u16* __restrict__ A,     // [M, K] f16 or bf16 bits
                  const u32x4* __restrict__ wq,  // gfx942 layout, N*K/8 dwords
                  const u32* __restrict__ wsz,   // (N/16)*(K/128)*16 scale dwords
                  u16* __restrict__ C,           // [M, N] bf16 bits
                  void* __restrict__ ws,         // split-K workspace (SK > 1), else unused
                  int M, int N, int K) {
  R4_TEST_FAULT_HOOK(C)
  const int lane = r4_lane();
  const int warp = (int)(threadIdx.x / R4_WAVE);
  const int r = lane & 15;
  const int ntiles = N >> 4;
  const int KB = K >> 6;
  const int G = K >> 7;
  const int tile_base = ((int)blockIdx.x * R4_WV + warp) * R4_NPW;
  const int kb_begin = r4_split_begin(blockIdx.y, KB);
  const int kb_end = r4_split_begin(blockIdx.y + 1, KB);
  const int m_base = (int)blockIdx.z * R4_MB * 16;
  const u32* wq32 = reinterpret_cast<const u32*>(wq);
  r4amd::v4f acc[R4_NPW][R4_MB];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MB; ++j) acc[p][j] = r4amd::v4f{};
  for (int kb = kb_begin; kb < kb_end; ++kb) {
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const int tile = min(tile_base + p, ntiles - 1);  // idle waves re-read a valid tile
      u32 wd[2];
      r4amd::ld_weight8<R4_NT>(wq32 + r4::layout::gfx942::lane_dword(tile, kb, KB, lane), wd[0],
                               wd[1]);
      const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
      const u32 sdw = wsz[((i64)tile * G + grp) * 16 + r];
#if R4_A_BF16
      const float sf = r4_f16_to_f32(sdw & 0xFFFFu);
#else
      const _Float16 sh = __builtin_bit_cast(_Float16, (u16)(sdw & 0xFFFFu));
#endif
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#if R4_A_BF16
        const auto b = r4amd::dequant_b_bf16(wd[s >> 1], s & 1, sf);
#else
        const auto b = r4amd::dequant_b_f16(wd[s >> 1], s & 1, sh);
#endif
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
          if (m_base + 16 * j < M) {  // uniform: skip M tiles with no live row
            const int row = m_base + 16 * j + r;
            auto a = r4amd::load_a16(A + (i64)min(row, M - 1) * K + kb * 64 + 16 * s, lane);
            if (row >= M) a = decltype(a){};
#if R4_A_BF16
            acc[p][j] = r4amd::mma_bf16(a, b, acc[p][j]);
#else
            acc[p][j] = r4amd::mma_f16(a, b, acc[p][j]);
#endif
          }
        }
      }
    }
  }
  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M, N};
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    if (tile_base + p < ntiles) {
#pragma unroll
      for (int j = 0; j < R4_MB; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          o.put(m_base + 16 * j + r4amd::c_row(lane, i), (tile_base + p) * 16 + r, acc[p][j][i]);
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}
