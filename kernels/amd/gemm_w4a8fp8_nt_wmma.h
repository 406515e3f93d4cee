// gemm_w4a8fp8_nt for AMD RDNA4 (gfx12) WMMA, included by kernels/gemm_w4a8fp8_nt.cu: seed 002's
// W4A8-fp8 with the seed's own instruction, v_wmma_f32_16x16x16_fp8_fp8 (OCP e4m3 x OCP e4m3 ->
// f32). Weights = B operand in the seeds' gfx12 layout (the one gemm_w4a8_nt_wmma.h reads), each
// nibble turned into the exact e4m3 byte code * 2^-9 in registers (wmma_gfx12.h int4x8_to_e4m3);
// activations = A operand, quant_act_fp8's e4m3 bytes (OCP, as gfx12 reads them) with one f32
// scale per row. Each 128-K group accumulates in its own f32 partial (the WMMA's C), which is
// promoted once per group by (group scale * 2^9) into the f32 total; the row scale multiplies at
// the end. The same loop as gemm_w4a8_nt_wmma.h with f32 partials in place of int32 ones.
//
// Why a partial per group and not one running sum: the scale differs per group and the WMMA
// cannot scale its operands; multiplying the e4m3 weights by the scale first would round them.
// Every product a * code * 2^-9 is exact in f32 (4 + 4 significant bits, exponents 2^-18..2^12),
// so the partial's only error is f32 summation inside the instruction.
//
// A first, untuned version (direct global loads, like the other RDNA bodies).
// STATUS: compiled offline for gfx1200/gfx1201 by CI with clang-19 (every valid config; the ISA
// must contain v_wmma_f32_16x16x16_fp8_fp8), fragment code emulated on the CPU against a plain
// reference with exact e4m3 decoding (tests/kernels/amd/fragment_emulation_test.cpp). NEVER RUN
// on an RDNA4 GPU: nothing here is measured, and the weight encoding relies on the WMMA taking
// e4m3 subnormals (codes |c| <= 7) at their value, which only a GPU run can confirm.
#ifndef R4_KERNELS_AMD_GEMM_W4A8FP8_NT_WMMA_H
#define R4_KERNELS_AMD_GEMM_W4A8FP8_NT_WMMA_H

#if !defined(__gfx1200__) && !defined(__gfx1201__) && defined(__HIP_DEVICE_COMPILE__)
#error "gemm_w4a8fp8_nt on AMD needs gfx12 fp8 WMMA (gfx11 has none; gfx942's fp8 is FNUZ)"
#else

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_WV* R4_WAVE)
    gemm_w4a8fp8_nt(const unsigned char* __restrict__ Aq,  // [M, K] OCP e4m3 bytes
                    const float* __restrict__ sa,          // [M] f32 activation scales
                    const u32x4* __restrict__ wq,          // gfx12 layout
                    const u32* __restrict__ wsz,           // scale dwords
                    u16* __restrict__ C,                   // [M, N] bf16 bits
                    void* __restrict__ ws,                 // split-K workspace (SK > 1)
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
  r4amd::v8f acc[R4_NPW][R4_MB];   // f32 total
  r4amd::v8f part[R4_NPW][R4_MB];  // f32 partial of the current 128-K group (units of 2^-9)
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4_MB; ++j) {
      acc[p][j] = r4amd::v8f{};
      part[p][j] = r4amd::v8f{};
    }
  for (int kb = kb_begin; kb < kb_end; ++kb) {
    const bool flush = (kb & 1) || kb + 1 == kb_end;  // end of a 128-K group or of the split
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const int tile = min(tile_base + p, ntiles - 1);
      const u32x4 w = r4_ld_weight<R4_NT>(wq + ((i64)tile * KB + kb) * 32 + lane);
      const u32 wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const auto b = r4amd::dequant_b_e4m3(wd[s], lane);
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
          if (m_base + 16 * j < M) {
            const int row = m_base + 16 * j + r;
            auto a = r4amd::load_a_e4m3(Aq + (i64)min(row, M - 1) * K + kb * 64 + 16 * s, lane);
            if (row >= M) a = decltype(a){};  // e4m3 0x00 is +0
            part[p][j] = r4amd::mma_fp8(a, b, part[p][j]);
          }
        }
      }
      if (flush) {  // one promotion per partial per group: scale * 2^9 undoes the weights' 2^-9
        const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
        const float ws9 = r4_f16_to_f32(wsz[((i64)tile * G + grp) * 16 + r] & 0xFFFFu) * 512.0f;
#pragma unroll
        for (int j = 0; j < R4_MB; ++j) {
#pragma unroll
          for (int i = 0; i < 8; ++i) acc[p][j][i] += part[p][j][i] * ws9;
          part[p][j] = r4amd::v8f{};
        }
      }
    }
  }
  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M,
                N};
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

#endif  // gfx12
#endif  // R4_KERNELS_AMD_GEMM_W4A8FP8_NT_WMMA_H
