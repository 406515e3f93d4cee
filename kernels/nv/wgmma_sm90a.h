// NVIDIA Hopper (sm_90a) instructions for the second kernel generation (kernels/nv/gemm_w4_sm90a.h):
// mbarriers, 1-D bulk asynchronous copies, proxy fences, and wgmma with the A operand in registers
// (the "RS" form) and B in shared memory through a matrix descriptor. Raw instructions only; the
// body owns the loops. Compiled for the arch-specific target sm_90a (NVRTC
// --gpu-architecture=sm_90a; nvcc -gencode arch=compute_90a,code=sm_90a), which a compute
// capability 9.0 device (H100, H200) runs.
//
// Fragment layouts as data (PTX ISA 9.7.15.5.1, "Register Fragments and Shared Memory Matrix
// Layouts" for wgmma .m64nNk16 / .m64nNk32), warp w of the warpgroup, lane = 4g + t:
//   A (64 x 16 f16/bf16, 4 x b32):  the mma.sync m16n8k16 A fragment of rows 16w..16w+15:
//                                    a0:(16w+g, 2t+{0,1}) a1:(16w+g+8, 2t+{0,1})
//                                    a2:(16w+g, 2t+8+{0,1}) a3:(16w+g+8, 2t+8+{0,1})
//   A (64 x 32 s8, 4 x b32):         the mma.sync m16n8k32 A fragment: a0:(16w+g, 4t+{0..3})
//                                    a1:(16w+g+8, 4t..) a2:(16w+g, 16+4t..) a3:(16w+g+8, 16+4t..)
//   D (64 x N, N/2 x f32 or s32):    per 8-column block i: d[4i]:(16w+g, 8i+2t) d[4i+1]:(16w+g, 8i+2t+1)
//                                    d[4i+2]:(16w+g+8, 8i+2t) d[4i+3]:(16w+g+8, 8i+2t+1)
//   B (K x N in shared memory):      core matrices of 8 (N) x 16 bytes (K), 128 contiguous bytes;
//                                    no swizzle, K-major: element (k, n) of a k-step at
//                                    start + (k / (16/elem)) * LBO + (n / 8) * SBO + (n % 8) * 16
//                                    + (k % (16/elem)) * elem (kernels/nv/wgmma_layout_sm90a.h).
// Matrix descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 start address >> 4, 16-29
// LBO >> 4, 32-45 SBO >> 4, 49-51 base offset (0), 62-63 swizzle (0: none).
#ifndef R4_KERNELS_NV_WGMMA_SM90A_H
#define R4_KERNELS_NV_WGMMA_SM90A_H

#include "kernels/prelude.h"

#if !defined(R4_NV)
#error "kernels/nv/wgmma_sm90a.h is for NVIDIA targets only"
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the sm90a generation needs the arch-specific target sm_90a (wgmma, setmaxnreg)"
#endif

namespace r4wg {

// ---- mbarriers (PTX ISA 9.7.12.15) -------------------------------------------------------------
__device__ inline void mbar_init(r4_saddr bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the async proxy (the bulk copies complete on them).
__device__ inline void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// Adds `bytes` to the transaction count the current phase waits for (no arrival).
__device__ inline void mbar_expect_tx(r4_saddr bar, u32 bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
// One arrival, release semantics: this thread's earlier shared-memory writes are visible to
// whoever completes a wait on the phase.
__device__ inline void mbar_arrive(r4_saddr bar) {
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.release.cta.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
               : "memory");
}
__device__ inline bool mbar_try_wait(r4_saddr bar, u32 parity) {
  u32 done;
  asm volatile(
      "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// Waits until the phase of parity `parity` has completed (a fresh barrier: parity 1 passes).
__device__ inline void mbar_wait(r4_saddr bar, u32 parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// ---- bulk asynchronous copies (PTX ISA 9.7.9.25.4.1 cp.async.bulk) ------------------------------
// `bytes` (a multiple of 16) from global `src` to shared `dst` (both 16-byte aligned), completing
// as transactions on `bar`. evict_first: an L2 evict-first policy for weights read once.
__device__ inline void bulk_copy(r4_saddr dst, const void* src, u32 bytes, r4_saddr bar,
                                 bool evict_first) {
  if (evict_first) {
    asm volatile(
        "{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n"
        " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], pol;\n}\n" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
  } else {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
  }
}

// The L2 evict-first policy of bulk_copy_pol, made once per thread rather than per copy.
__device__ inline u64 evict_first_policy() {
  u64 pol;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
  return pol;
}
// bulk_copy with a policy made beforehand (evict_first true) or none.
__device__ inline void bulk_copy_pol(r4_saddr dst, const void* src, u32 bytes, r4_saddr bar,
                                     bool evict_first, u64 pol) {
  if (!evict_first) {
    bulk_copy(dst, src, bytes, bar, false);
    return;
  }
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;\n" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "l"(pol)
      : "memory");
}

// An arrival on `bar` once every cp.async this thread issued before it has landed (.noinc: it is
// one of the barrier's expected arrivals, PTX ISA 9.7.9.25.3). cp.async writes are the generic
// proxy's: a reader through the async proxy (wgmma) fences after its wait (fence_proxy_async).
__device__ inline void cp_async_mbar_arrive_noinc(r4_saddr bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

// Shared memory written by ordinary stores and read next by the async proxy (wgmma's B operand):
// each writing thread fences before the barrier that publishes the data.
__device__ inline void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- wgmma (PTX ISA 9.7.15) ----------------------------------------------------------------------
__device__ inline void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ inline void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Pins a register that an in-flight wgmma writes: wgmma's outputs are asm operands of the
// mma_async statement, so without this the compiler may move a read of an accumulator above the
// wgmma.wait_group that makes it valid (CUTLASS's warpgroup_fence_operand does the same). Volatile
// asm statements keep their order, so a read after this stays after the wait before it.
__device__ inline void fence_operand(float& r) {
  asm volatile("" : "+f"(r)::"memory");
}
__device__ inline void fence_operand(i32& r) {
  asm volatile("" : "+r"(r)::"memory");
}
__device__ inline void fence_operand(u32& r) {  // an A fragment register that an in-flight wgmma reads
  asm volatile("" : "+r"(r)::"memory");
}

// A no-swizzle K-major shared-memory descriptor.
__device__ inline u64 smem_desc(r4_saddr start, u32 lbo, u32 sbo) {
  return (u64)((start & 0x3FFFFu) >> 4) | ((u64)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((u64)((sbo & 0x3FFFFu) >> 4) << 32);
}

// D (+)= A * B for one k-step: A the warpgroup's 64 x 16 (f16, bf16) or 64 x 32 (s8) register
// fragment, B N columns in shared memory. scale_d = 0: D = A * B.
__device__ inline void wgmma_f16_n16(float (&d)[8], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %13, 0;\n wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_bf16_n16(float (&d)[8], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %13, 0;\n wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_s8_n16(i32 (&d)[8], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %13, 0;\n wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_f16_n32(float (&d)[16], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_bf16_n32(float (&d)[16], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_s8_n32(i32 (&d)[16], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n wgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

// N = 48 (MB 3: M = 33..48 in one block, kernels/config.hpp is_valid_sm90a).
__device__ inline void wgmma_f16_n48(float (&d)[24], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %29, 0;\n wgmma.mma_async.sync.aligned.m64n48k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, {%24, %25, %26, %27}, %28, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_bf16_n48(float (&d)[24], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %29, 0;\n wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, {%24, %25, %26, %27}, %28, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_s8_n48(i32 (&d)[24], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %29, 0;\n wgmma.mma_async.sync.aligned.m64n48k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, {%24, %25, %26, %27}, %28, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_e4m3_n48(float (&d)[24], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %29, 0;\n wgmma.mma_async.sync.aligned.m64n48k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, {%24, %25, %26, %27}, %28, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_f16_n64(float (&d)[32], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_bf16_n64(float (&d)[32], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_s8_n64(i32 (&d)[32], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p;\n}\n"
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

// e4m3 x e4m3 -> f32 (the fp8-activation GEMM gemm_w4a8fp8_nt): the s8 fragment layout (8-bit
// types share it), f32 accumulators, and the fp8 form's scale-a / scale-b immediates (1: no
// negation; fp8 has no transpose immediates).
__device__ inline void wgmma_e4m3_n16(float (&d)[8], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %13, 0;\n wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_e4m3_n32(float (&d)[16], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %21, 0;\n wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

__device__ inline void wgmma_e4m3_n64(float (&d)[32], const u32 (&a)[4], u64 desc, int scale_d) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d));
}

// The k-step for N = 16, 32, 48, 64 and the activation kind (0 f16, 1 bf16, 2 s8, 3 and 4 e4m3:
// int4 or MXFP4 weights as e4m3 bytes; ACC is float or i32).
template <int KIND, int N, class ACC>
__device__ inline void wgmma_step(ACC (&d)[N / 2], const u32 (&a)[4], u64 desc, int scale_d) {
  if constexpr (KIND == 0) {
    if constexpr (N == 16) wgmma_f16_n16(d, a, desc, scale_d);
    if constexpr (N == 32) wgmma_f16_n32(d, a, desc, scale_d);
    if constexpr (N == 48) wgmma_f16_n48(d, a, desc, scale_d);
    if constexpr (N == 64) wgmma_f16_n64(d, a, desc, scale_d);
  } else if constexpr (KIND == 1) {
    if constexpr (N == 16) wgmma_bf16_n16(d, a, desc, scale_d);
    if constexpr (N == 32) wgmma_bf16_n32(d, a, desc, scale_d);
    if constexpr (N == 48) wgmma_bf16_n48(d, a, desc, scale_d);
    if constexpr (N == 64) wgmma_bf16_n64(d, a, desc, scale_d);
  } else if constexpr (KIND == 3 || KIND == 4) {
    if constexpr (N == 16) wgmma_e4m3_n16(d, a, desc, scale_d);
    if constexpr (N == 32) wgmma_e4m3_n32(d, a, desc, scale_d);
    if constexpr (N == 48) wgmma_e4m3_n48(d, a, desc, scale_d);
    if constexpr (N == 64) wgmma_e4m3_n64(d, a, desc, scale_d);
  } else {
    if constexpr (N == 16) wgmma_s8_n16(d, a, desc, scale_d);
    if constexpr (N == 32) wgmma_s8_n32(d, a, desc, scale_d);
    if constexpr (N == 48) wgmma_s8_n48(d, a, desc, scale_d);
    if constexpr (N == 64) wgmma_s8_n64(d, a, desc, scale_d);
  }
}

}  // namespace r4wg

#endif  // R4_KERNELS_NV_WGMMA_SM90A_H
