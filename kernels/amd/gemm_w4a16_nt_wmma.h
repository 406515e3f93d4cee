// gemm_w4a16_nt for AMD WMMA (gfx11 / gfx12), included by kernels/gemm_w4a16_nt.cu. Weights in
// the seed's gfx12 layout are the B operand (16 columns n), activations the A operand (16 rows m),
// as in the seeds' r4d kernels. A first, untuned version: direct global loads, no LDS pipeline
// (the dynamic shared memory the host passes is unused). Same config meaning, grid and split-K
// epilogue as the NVIDIA path. The fragment helpers (kernels/amd/wmma_gfx1{1,2}.h) take the same
// arguments on both generations. STATUS: see kernels/README.md (compiled by CI with clang-19,
// fragment layouts emulated on the CPU, not run on AMD hardware).
R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV * R4_WAVE)
    gemm_w4a16_nt(const u16* __restrict__ A, const u32x4* __restrict__ wq,
                  const u32* __restrict__ wsz, u16* __restrict__ C, void* __restrict__ ws, int M,
                  int N, int K) {
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
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MB; ++j) acc[p][j] = r4amd::v8f{};
  for (int kb = kb_begin; kb < kb_end; ++kb) {
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const int tile = min(tile_base + p, ntiles - 1);
      const u32x4 w = r4_ld_weight<R4_NT>(wq + ((i64)tile * KB + kb) * 32 + lane);
      const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
      const u32 sdw = wsz[((i64)tile * G + grp) * 16 + r];
      const u32 wd[4] = {w.x, w.y, w.z, w.w};
#if R4_A_BF16
      const float sf = r4_f16_to_f32(sdw & 0xFFFFu);
#else
      const _Float16 sh = __builtin_bit_cast(_Float16, (u16)(sdw & 0xFFFFu));
#endif
#pragma unroll
      for (int s = 0; s < 4; ++s) {
#if R4_A_BF16
        const auto b = r4amd::dequant_b_bf16(wd[s], sf, lane);
#else
        const auto b = r4amd::dequant_b_f16(wd[s], sh, lane);
#endif
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
          if (m_base + 16 * j < M) {
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
        for (int i = 0; i < 8; ++i)
          o.put(m_base + 16 * j + r4amd::c_row(lane, i), (tile_base + p) * 16 + r, acc[p][j][i]);
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}
