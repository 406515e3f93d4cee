// The two limits every time is held against (DESIGN.md "Measurement"; docs/TUNER.md "Floors"),
// measured in the same run, on the same device and with the same pooled method as the candidates:
//
// r4_empty        does nothing. Graph-replayed, its time per launch is the LAUNCH FLOOR.
// r4_read_floor   streams exactly one shape's packed weight (N*K/2 bytes) and scale dwords
//                 (N*K/32 bytes) once, with 16-byte loads, grid-stride, four loads in flight per
//                 thread per iteration (as the streaming-read ceiling kernel). One launch per
//                 pool copy, best of a few grid sizes: the READ FLOOR of the shape, launch, DRAM
//                 latency and tail included. No GEMM that reads these bytes once beats it by much.
//
// r4_read_floor also runs in decode-step chains (the `read_floor` step paths): it calls
// launch_dependents at once, streams its bytes, then waits for the previous kernel of the stream
// (kernels/prelude.h) and reads one word of its output `in` before writing its own `out`, so a
// chain of them depends launch on launch exactly like a chain of GEMMs, and under programmatic
// dependent launch each one streams while the previous one drains
// (../shared/bench/h200-floors-2026-11-30.md: six shapes, 30.4 us plain, 22.0 us with PDL).
// Vendor-neutral: the same source compiles with NVRTC and hipRTC (PDL is a no-op on AMD).
#include "kernels/prelude.h"

R4_EXTERN void r4_empty() {}

// Four independent 16-byte weight loads per iteration, then the rest one at a time; the XOR only
// keeps the loads alive (the L2 evict-first policy of the NT weight loads, as the GEMMs may use).
__device__ inline u32 r4_stream_xor(const u32x4* __restrict__ p, i64 n16) {
  const i64 stride = (i64)gridDim.x * blockDim.x;
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  u32 acc = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    const u32x4 a = r4_ld_weight<1>(p + i);
    const u32x4 b = r4_ld_weight<1>(p + i + stride);
    const u32x4 c = r4_ld_weight<1>(p + i + 2 * stride);
    const u32x4 d = r4_ld_weight<1>(p + i + 3 * stride);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n16; i += stride) {
    const u32x4 a = r4_ld_weight<1>(p + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  return acc;
}

R4_EXTERN void r4_read_floor(const u32x4* __restrict__ wq,   // N*K/2 bytes: nq16 16-byte words
                             i64 nq16,
                             const u32x4* __restrict__ wsz,  // N*K/32 bytes: ns16 words
                             i64 ns16,
                             const u32* __restrict__ in,     // previous kernel's output, or null
                             u32* __restrict__ out) {        // gridDim.x words, or null
  r4_pdl_launch_dependents();
  const u32 acc = r4_stream_xor(wq, nq16) ^ r4_stream_xor(wsz, ns16);
  r4_pdl_wait();  // after the weights: the previous kernel may still be writing `in`
  const u32 dep = in ? in[blockIdx.x & 63u] : 0u;
  if (out && threadIdx.x == 0) out[blockIdx.x] = dep + 1u;
  if (out && (acc ^ dep) == 0x9E3779B9u) out[blockIdx.x] = acc;  // practically never
}

// An experiment, not yet the sweep's floor (docs/PERF.md, session 5): the same bytes as
// r4_read_floor in ONE grid-stride loop over both arrays as one index space [0, nq16 + ns16), so
// the scale loads are in flight together with the weight loads. r4_read_floor streams the weight
// and then the scales as two loops; at small shapes a thread makes about one pass of each, and
// the two DRAM round trips add (the fixture's small-shape floors sit 0.35-0.6 us above the floors
// document's). `r4kern --time` prints both; the sweep keeps r4_read_floor until this is measured.
__device__ inline const u32x4* r4_floor_word(const u32x4* wq, i64 nq16, const u32x4* wsz, i64 i) {
  return i < nq16 ? wq + i : wsz + (i - nq16);
}

R4_EXTERN void r4_read_floor_fused(const u32x4* __restrict__ wq, i64 nq16,
                                   const u32x4* __restrict__ wsz, i64 ns16,
                                   const u32* __restrict__ in, u32* __restrict__ out) {
  r4_pdl_launch_dependents();
  const i64 n16 = nq16 + ns16;
  const i64 stride = (i64)gridDim.x * blockDim.x;
  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  u32 acc = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    const u32x4 a = r4_ld_weight<1>(r4_floor_word(wq, nq16, wsz, i));
    const u32x4 b = r4_ld_weight<1>(r4_floor_word(wq, nq16, wsz, i + stride));
    const u32x4 c = r4_ld_weight<1>(r4_floor_word(wq, nq16, wsz, i + 2 * stride));
    const u32x4 d = r4_ld_weight<1>(r4_floor_word(wq, nq16, wsz, i + 3 * stride));
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n16; i += stride) {
    const u32x4 a = r4_ld_weight<1>(r4_floor_word(wq, nq16, wsz, i));
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  r4_pdl_wait();
  const u32 dep = in ? in[blockIdx.x & 63u] : 0u;
  if (out && threadIdx.x == 0) out[blockIdx.x] = dep + 1u;
  if (out && (acc ^ dep) == 0x9E3779B9u) out[blockIdx.x] = acc;  // practically never
}

// EXPERIMENT (session 9, docs/PERF.md; timed by `r4kern --floors`, not used by the sweep): the
// same weight bytes in the GEMMs' access pattern. Each warp streams a contiguous chunk of
// R4F_CHUNK bytes, as a GEMM warp streams its 16-row tile (a 16-row sm80 tile of a K = 5120 shape
// is 40,960 B), with U 512-byte warp loads in flight; chunks go grid-stride over the warps. The
// scales are streamed as r4_read_floor streams them. Against r4_read_floor (every warp reads
// 512 B slices spread over the whole array, neighbouring warps neighbouring slices), this tells
// whether the GEMMs' many concurrent contiguous streams cost DRAM throughput by themselves, at
// U = 4 (the in-flight bytes per warp of the ldg generation's common configs) and U = 16.
#ifndef R4F_CHUNK
#define R4F_CHUNK 40960
#endif
// The first use of all U loads in one asm statement: written as plain XORs, ptxas compiled the
// U = 16 loop in 48 registers (fewer than the 64 that 16 loads in flight hold), and U = 16 timed
// like U = 4; one consumer of every load leaves it no such choice (NVIDIA; plain XORs elsewhere).
template <int U>
__device__ inline u32 r4_first_use(const u32x4 (&v)[U]) {
  u32 r = 0;
#if defined(R4_NV)
  if constexpr (U == 16) {
    asm volatile(
        "xor.b32 %0, %1, %2;\n xor.b32 %0, %0, %3;\n xor.b32 %0, %0, %4;\n xor.b32 %0, %0, %5;\n"
        " xor.b32 %0, %0, %6;\n xor.b32 %0, %0, %7;\n xor.b32 %0, %0, %8;\n xor.b32 %0, %0, %9;\n"
        " xor.b32 %0, %0, %10;\n xor.b32 %0, %0, %11;\n xor.b32 %0, %0, %12;\n"
        " xor.b32 %0, %0, %13;\n xor.b32 %0, %0, %14;\n xor.b32 %0, %0, %15;\n"
        " xor.b32 %0, %0, %16;\n"
        : "=r"(r)
        : "r"(v[0].x), "r"(v[1].x), "r"(v[2].x), "r"(v[3].x), "r"(v[4].x), "r"(v[5].x),
          "r"(v[6].x), "r"(v[7].x), "r"(v[8].x), "r"(v[9].x), "r"(v[10].x), "r"(v[11].x),
          "r"(v[12].x), "r"(v[13].x), "r"(v[14].x), "r"(v[15].x));
    return r;
  }
#endif
#pragma unroll
  for (int u = 0; u < U; ++u) r ^= v[u].x;
  return r;
}

template <int U>
__device__ inline u32 r4_stream_chunks(const u32x4* __restrict__ p, i64 n16) {
  const int lane = (int)(threadIdx.x & 31u);
  const i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
  const i64 c16 = R4F_CHUNK / 16;
  const i64 nchunks = (n16 + c16 - 1) / c16;
  u32 acc = 0;
  for (i64 c = (i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); c < nchunks; c += warps) {
    const i64 end = (c + 1) * c16 < n16 ? (c + 1) * c16 : n16;
    i64 i = c * c16 + lane;
    for (; i + (U - 1) * 32 < end; i += U * 32) {
      u32x4 v[U];
#pragma unroll
      for (int u = 0; u < U; ++u) v[u] = r4_ld_weight<1>(p + i + u * 32);
      acc ^= r4_first_use<U>(v);
#pragma unroll
      for (int u = 0; u < U; ++u) acc ^= v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < end; i += 32) {
      const u32x4 a = r4_ld_weight<1>(p + i);
      acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  return acc;
}

#define R4F_CHUNKS_KERNEL(NAME, U)                                                              \
  R4_EXTERN void NAME(const u32x4* __restrict__ wq, i64 nq16, const u32x4* __restrict__ wsz,    \
                      i64 ns16, const u32* __restrict__ in, u32* __restrict__ out) {            \
    r4_pdl_launch_dependents();                                                                 \
    const u32 acc = r4_stream_chunks<U>(wq, nq16) ^ r4_stream_xor(wsz, ns16);                   \
    r4_pdl_wait();                                                                              \
    const u32 dep = in ? in[blockIdx.x & 63u] : 0u;                                             \
    if (out && threadIdx.x == 0) out[blockIdx.x] = dep + 1u;                                    \
    if (out && (acc ^ dep) == 0x9E3779B9u) out[blockIdx.x] = acc; /* practically never */       \
  }
R4F_CHUNKS_KERNEL(r4_read_floor_chunks4, 4)
R4F_CHUNKS_KERNEL(r4_read_floor_chunks16, 16)
