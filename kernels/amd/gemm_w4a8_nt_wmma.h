// gemm_w4a8_nt for AMD WMMA (gfx11 / gfx12), included by kernels/gemm_w4a8_nt.cu: int8 WMMA
// (v_wmma_i32_16x16x16_iu8), int32 per 128-K group, one multiply by (scale/16) per group, the
// activation row scale at the end. Weights = B operand (seed gfx12 layout), activations = A.
// A first, untuned version (direct global loads). STATUS: see kernels/README.md (compiled by CI
// with clang-19, fragment layouts emulated on the CPU, not run on AMD hardware).
R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * R4_WAVE)
    gemm_w4a8_nt(const i8* __restrict__ Aq, const float* __restrict__ sa,
                 const u32x4* __restrict__ wq, const u32* __restrict__ wsz, u16* __restrict__ C,
                 void* __restrict__ ws, int M, int N, int K) {
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
  r4amd::v8f acc[R4_NPW][R4_MB];
  r4amd::v8i iacc[R4_NPW][R4_MB];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MB; ++j) {
      acc[p][j] = r4amd::v8f{};
      iacc[p][j] = r4amd::v8i{};
    }
  for (int kb = kb_begin; kb < kb_end; ++kb) {
    const bool flush = (kb & 1) || kb + 1 == kb_end;
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const int tile = min(tile_base + p, ntiles - 1);
      const u32x4 w = r4_ld_weight<R4_NT>(wq + ((i64)tile * KB + kb) * 32 + lane);
      const u32 wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const auto b = r4amd::dequant_b_s8(wd[s], lane);
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
          if (m_base + 16 * j < M) {
            const int row = m_base + 16 * j + r;
            auto a = r4amd::load_a8(Aq + (i64)min(row, M - 1) * K + kb * 64 + 16 * s, lane);
            if (row >= M) a = decltype(a){};
            iacc[p][j] = r4amd::mma_s8(a, b, iacc[p][j]);
          }
        }
      }
      if (flush) {
        const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
        const float ws16 = r4_f16_to_f32(wsz[((i64)tile * G + grp) * 16 + r] & 0xFFFFu) * 0.0625f;
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[p][j][i] += (float)iacc[p][j][i] * ws16;
          iacc[p][j] = r4amd::v8i{};
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
        for (int i = 0; i < 8; ++i) {
          const int m = m_base + 16 * j + r4amd::c_row(lane, i);
          o.put(m, (tile_base + p) * 16 + r, m < M ? acc[p][j][i] * sa[m] : 0.0f);
        }
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}
