// quant_act: A[M, K] (bf16) -> Aq[M, K] (int8) and sa[M] (f32), symmetric per row:
//   sa = amax / 127 (amax = max |a| over the row, f32),  q = rint(a * (127 / amax)) in -127..127,
// rounding HALF TO EVEN (rintf under the default rounding mode; the CPU reference
// kernels/reference.cpp uses std::nearbyint and the same f32 operations, so results match bit for
// bit). A row of zeros gives sa = 0 and q = 0. One block of 256 threads per row, which reads its
// row once into registers (kernels/quant_row.h); K a multiple of 8, A 16-byte aligned. `order` 1
// writes the sm90a generation's order (ActOrder::sm90a in kernels/config.hpp; a dword transpose
// within each 64-byte block, rows interleaved chunk-major: kernels/nv/wgmma_layout_sm90a.h
// act_offset_8; K a multiple of 128), which that generation's one-byte GEMMs bulk-copy into their
// B tiles as is; the ldg and mma.sync generations read order 0. No config
// knobs: it is one read of M*K*2 bytes. A is read through L2 only (ld.global.cg): it is the
// previous kernel's output, under PDL read after griddepcontrol.wait.
#include "kernels/quant_row.h"

// Threads per row and the most 16-byte vectors a thread holds (rows up to K = 16384 in one read).
// The launch (kernels/family.cpp launch_dims) is 256 threads: other values are EXPERIMENT ONLY,
// for `r4kern --one --define R4_QA_THREADS=1024 --define R4_QA_VEC=2` (docs/PERF.md session 11).
#ifndef R4_QA_THREADS
#define R4_QA_THREADS 256
#endif
#ifndef R4_QA_VEC
#define R4_QA_VEC 8
#endif
#ifndef R4_QA_LEGACY
// EXPERIMENT ONLY: 1 is the two-pass loop of sessions 1-10 (A/B, session 11)
#define R4_QA_LEGACY 0
#endif

// 8 bf16 -> 8 int8, rint(a * inv) clamped to +-127 (round half to even under the default mode).
struct R4QuantS8 {
  __device__ void operator()(const u32x4& v, float inv, u32 (&out)[2]) const {
    const u32 w[4] = {v.x, v.y, v.z, v.w};
    out[0] = out[1] = 0u;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const u32 bits = (e & 1) ? (w[e >> 1] >> 16) : (w[e >> 1] & 0xFFFFu);
      float qf = rintf(r4_bf16_to_f32(bits) * inv);
      qf = fminf(fmaxf(qf, -127.0f), 127.0f);
      out[e >> 2] |= ((u32)(i32)qf & 0xFFu) << (8 * (e & 3));
    }
  }
};

R4_EXTERN void R4_LAUNCH_BOUNDS(R4_QA_THREADS)
    quant_act(const u16* __restrict__ A,   // [M, K] bf16 bits
              i8* __restrict__ Aq,         // [M, K] int8
              float* __restrict__ sa,      // [M] f32
              int M, int K,
              int order) {  // 0 natural, 1 the sm90a GEMMs' order (kernels/quant_row.h)
  // Under programmatic dependent launch (kernels/prelude.h): A is the previous kernel's output, so
  // wait before reading it; then let the next kernel (the w4a8 GEMM) start streaming its weights.
  r4_pdl_wait();
  r4_pdl_launch_dependents();  // after the wait: the GEMM that follows starts no earlier than A is
                               // complete (a trigger at entry let it launch during the GEMM before)
  const int row = (int)blockIdx.x;
  if (row >= M) return;
  u32* dst = reinterpret_cast<u32*>(Aq);  // the whole matrix: r4_act_dword places the row
  constexpr int kVec = R4_QA_LEGACY ? 0 : R4_QA_VEC;
  r4_quant_row_fit<R4_QA_THREADS, kVec>(A + (i64)row * K, K, 127.0f, dst, sa + row, R4QuantS8{}, order, row, M);
}
