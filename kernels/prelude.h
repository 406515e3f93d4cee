// Vendor prelude for the run-time-compiled kernel family (NVRTC or hipRTC; no std header, no
// cuda_fp16.h / hip_fp16.h: every f16/bf16 value travels as raw bits in a u32 or u16).
// One line per shim; anything arch-specific beyond these lives in the fragment files
// (kernels/nv/mma_sm80.h, kernels/amd/wmma_gfx11.h, kernels/amd/wmma_gfx12.h).
#ifndef R4_KERNELS_PRELUDE_H
#define R4_KERNELS_PRELUDE_H

typedef unsigned int u32;
typedef int i32;
typedef unsigned short u16;
typedef unsigned long long u64;
typedef long long i64;
typedef signed char i8;
struct __align__(16) u32x4 { u32 x, y, z, w; };

// Where the GEMMs let the next kernel of a stream launch under programmatic dependent launch
// (r4_pdl_launch_dependents): 1 at entry (the next kernel's CTAs take free SM slots and start
// streaming their weights at once), 2 after the main loop (only the epilogue and the split-K
// reduction overlap), 0 never (the dependent launches when this grid exits). A launch option's
// timing question, not a result: every placement gives identical bits (the dependent's wait is
// what orders the data).
// Default 2 (H200, 2026-11-30, four-GEMM chains at M = 8 with and without PDL: the mma.sync
// generation 70.3 -> 67.5 us with 2 and 67.0 with 1; the sm90a generation 78.1 -> 72.2 with 2 and
// 76.6 with 1; and in the six-shape dflash chain with the trigger at entry PDL was slower than
// plain stream order, 86.7 against 70.1 us at M = 1: with every kernel triggering at entry, a
// kernel two or three launches ahead can be resident and waiting while its predecessors run).
#ifndef R4_PDL_TRIGGER
#define R4_PDL_TRIGGER 2
#endif

#if defined(__HIPCC_RTC__) || defined(__HIP_DEVICE_COMPILE__) || defined(__HIPCC__)
#define R4_AMD 1
#define R4_EXTERN extern "C" __global__
#define R4_LAUNCH_BOUNDS(t) __launch_bounds__(t, 1)
// lane id within a wave32
__device__ inline int r4_lane() { return __lane_id(); }
// 16-byte read-only global load (weights: NT=1 asks for a non-temporal load)
// (the nontemporal builtin wants a vector type, not a struct: clang-19, 2026-11-30)
typedef u32 r4_u32v4 __attribute__((ext_vector_type(4)));
template <int NT> __device__ inline u32x4 r4_ld_weight(const u32x4* p) { const r4_u32v4 v = NT ? __builtin_nontemporal_load(reinterpret_cast<const r4_u32v4*>(p)) : *reinterpret_cast<const r4_u32v4*>(p); return u32x4{v.x, v.y, v.z, v.w}; }
// 16-byte read-only global load for activations
__device__ inline u32x4 r4_ld_act16(const void* p) { return *static_cast<const u32x4*>(p); }
// 16-byte global load of data a previous kernel wrote (plain on AMD: no PDL there)
__device__ inline u32x4 r4_ld_cg16(const void* p) { return *static_cast<const u32x4*>(p); }
// 4-byte read-only global load
__device__ inline u32 r4_ld_u32(const u32* p) { return *p; }
// f32 load that bypasses the (non-coherent) L1: split-K partials written by other blocks
// (a relaxed agent-scope atomic load: global_load with the L1-bypass bits; atomics take integers)
__device__ inline float r4_ld_coherent(const float* p) { return __builtin_bit_cast(float, __hip_atomic_load(reinterpret_cast<const u32*>(p), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)); }
// 16-byte f32x4 load that bypasses the non-coherent L1
__device__ inline float4 r4_ld_coherent4(const float* p) { float4 v; v.x = r4_ld_coherent(p); v.y = r4_ld_coherent(p + 1); v.z = r4_ld_coherent(p + 2); v.w = r4_ld_coherent(p + 3); return v; }
// f32 -> bf16 bits, round to nearest even (NaN kept quiet)
__device__ inline u16 r4_f32_to_bf16(float f) { u32 x = __builtin_bit_cast(u32, f); if ((x & 0x7FFFFFFFu) > 0x7F800000u) return (u16)((x >> 16) | 0x40u); return (u16)((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16); }
// f16 bits -> f32
__device__ inline float r4_f16_to_f32(u32 h) { return (float)__builtin_bit_cast(_Float16, (u16)h); }
// bf16 bits -> f32
__device__ inline float r4_bf16_to_f32(u32 h) { return __builtin_bit_cast(float, h << 16); }
// address in shared memory (LDS): a plain pointer on AMD (see the NVIDIA shim for why it is a type)
typedef char* r4_saddr;
// r4_saddr of a pointer to shared memory
__device__ inline r4_saddr r4_saddr_of(void* p) { return static_cast<char*>(p); }
// 16-byte global -> shared copy (synchronous on AMD; the wait is the barrier that follows)
__device__ inline void r4_cp_async16(r4_saddr smem, const void* gmem) { *reinterpret_cast<u32x4*>(smem) = *static_cast<const u32x4*>(gmem); }
// no asynchronous copy groups on AMD
__device__ inline void r4_cp_async_commit() {}
// no asynchronous copy groups on AMD
template <int N> __device__ inline void r4_cp_async_wait() {}
// 16-byte shared-memory (LDS) load
__device__ inline u32x4 r4_lds16(r4_saddr p) { return *reinterpret_cast<const u32x4*>(p); }
// 4-byte shared-memory (LDS) load
__device__ inline u32 r4_lds32(r4_saddr p) { return *reinterpret_cast<const u32*>(p); }
// no programmatic dependent launch on AMD: kernels run in stream order
__device__ inline void r4_pdl_launch_dependents() {}
// no programmatic dependent launch on AMD: the previous kernel has completed already
__device__ inline void r4_pdl_wait() {}
#else

#define R4_NV 1
#define R4_EXTERN extern "C" __global__
#define R4_LAUNCH_BOUNDS(t) __launch_bounds__(t, 1)
// lane id within a warp
__device__ inline int r4_lane() { return (int)(threadIdx.x & 31u); }
// 16-byte weight load: read-only path, no L1 allocation; NT=1 adds an L2 evict-first policy
template <int NT> __device__ inline u32x4 r4_ld_weight(const u32x4* p) {
  u32x4 v;
  if (NT) {
    asm volatile("{\n .reg .b64 pol;\n createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], pol;\n}\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  }
  return v;
}
// 16-byte read-only global load for activations (L1-cached: every warp of the block reuses them)
__device__ inline u32x4 r4_ld_act16(const void* p) { u32x4 v; asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p)); return v; }
// 16-byte global load cached in L2 only: activations a previous kernel wrote (under PDL, read
// after griddepcontrol.wait; L2 is where that kernel's writes are visible)
__device__ inline u32x4 r4_ld_cg16(const void* p) { u32x4 v; asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p)); return v; }
// 4-byte read-only global load (scale dwords)
__device__ inline u32 r4_ld_u32(const u32* p) { u32 v; asm volatile("ld.global.nc.u32 %0, [%1];\n" : "=r"(v) : "l"(p)); return v; }
// f32 load cached in L2 only: split-K partials written by other blocks (L1 is not coherent)
__device__ inline float r4_ld_coherent(const float* p) { float v; asm volatile("ld.global.cg.f32 %0, [%1];\n" : "=f"(v) : "l"(p)); return v; }
// 16-byte f32x4 load cached in L2 only (split-K partials)
__device__ inline float4 r4_ld_coherent4(const float* p) { float4 v; asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p)); return v; }
// f32 -> bf16 bits, round to nearest even
__device__ inline u16 r4_f32_to_bf16(float f) { u16 h; asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(f)); return h; }
// f16 bits (low half of h) -> f32
__device__ inline float r4_f16_to_f32(u32 h) { float f; asm("{\n .reg .b16 l, u;\n mov.b32 {l, u}, %1;\n cvt.f32.f16 %0, l;\n}\n" : "=f"(f) : "r"(h)); return f; }
// bf16 bits (low half of h) -> f32
__device__ inline float r4_bf16_to_f32(u32 h) { return __int_as_float((int)(h << 16)); }
// Address in shared memory: a 32-bit offset in the block's shared window, not a pointer. nvcc
// lowers pointers to shared memory to 32 bits and NVRTC keeps them at 64, so the same C++ pointer
// code compiled to different machine code (gemm_w4a8_nt (8,4,1,1,1): 68 registers through nvcc,
// 66 through NVRTC; r4d's nvcc build ran three table rows 3-7% slower than the tuner's NVRTC
// build, H200 2026-11-30). With integer offsets and inline-asm accesses both compilers get the
// same arithmetic (docs/PERF.md, "one code for r4d and the tuner").
typedef u32 r4_saddr;
// r4_saddr of a generic pointer to shared memory
__device__ inline r4_saddr r4_saddr_of(const void* p) { u32 a; asm("{\n .reg .u64 t;\n cvta.to.shared.u64 t, %1;\n cvt.u32.u64 %0, t;\n}\n" : "=r"(a) : "l"(p)); return a; }
// 16-byte asynchronous global -> shared copy (L2 only), completed by r4_cp_async_wait
__device__ inline void r4_cp_async16(r4_saddr smem, const void* gmem) { asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(smem), "l"(gmem) : "memory"); }
// close the current group of asynchronous copies
__device__ inline void r4_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// wait until at most N groups of this thread's asynchronous copies are pending
template <int N> __device__ inline void r4_cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory"); }
// 16-byte shared-memory load. Not volatile (an unused load may go), but "memory": it must stay
// after the cp.async wait and the barrier that make the data visible.
__device__ inline u32x4 r4_lds16(r4_saddr a) { u32x4 v; asm("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a) : "memory"); return v; }
// 4-byte shared-memory load (as r4_lds16)
__device__ inline u32 r4_lds32(r4_saddr a) { u32 v; asm("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory"); return v; }
// Programmatic dependent launch (PTX ISA 7.8, sm_90+; nothing before sm_90). A kernel launched
// with the programmatic-serialization attribute may start while the previous kernel in the stream
// runs; it must call r4_pdl_wait() before it reads anything an earlier kernel writes (activations,
// the split-K workspace) and before it writes anything (an earlier kernel may still read it).
// Weights and scales are never written by a kernel, so they stream before the wait. Without the
// attribute both are no-ops. launch_dependents is not a memory fence (PRIOR_ART.md, "Hopper").
// let the next kernel in the stream launch (its CTAs then wait in r4_pdl_wait for this grid)
__device__ inline void r4_pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}
// wait until every prerequisite grid has completed and its memory operations are visible
__device__ inline void r4_pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}
#endif


#endif  // R4_KERNELS_PRELUDE_H
