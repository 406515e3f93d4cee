// Stand-in for the HIP headers when r4tune compiles AMD device code offline with Debian's
// clang-19 (`-x hip --cuda-device-only -nogpuinc -nogpulib`, tuner/gpu/clang_hip.cpp): force-
// included ahead of every source, embedded in the binary (tuner/CMakeLists.txt). Everything here
// is a clang builtin; the definitions follow ROCm's amd_hip_runtime.h / amd_warp_functions.h /
// amd_hip_atomic.h in meaning. Only what the kernel family and the tests use is declared: a
// source needing more of HIP fails to compile here and says which name is missing.
// One commented line per shim.
#ifndef R4_CLANG_HIP_PRELUDE_H
#define R4_CLANG_HIP_PRELUDE_H

// what hipcc / hipRTC define for HIP sources (kernels/prelude.h keys its AMD branch on it)
#define __HIPCC__ 1
// a kernel entry point
#define __global__ __attribute__((global))
// a device function
#define __device__ __attribute__((device))
// a host function (host + device: both)
#define __host__ __attribute__((host))
// LDS (workgroup) storage
#define __shared__ __attribute__((shared))
// constant-address-space storage
#define __constant__ __attribute__((constant))
// alignment of a type or variable
#define __align__(n) __attribute__((aligned(n)))
// at most t work-items per workgroup (HIP's second argument, min blocks per CU, is not used here)
#define __launch_bounds__(t, ...) __attribute__((amdgpu_flat_work_group_size(1, t)))

// threadIdx / blockIdx / blockDim / gridDim as HIP spells them: properties over the builtins
struct r4_hip_thread_idx {
  __declspec(property(get = get_x)) unsigned int x;
  __declspec(property(get = get_y)) unsigned int y;
  __declspec(property(get = get_z)) unsigned int z;
  __device__ unsigned int get_x() const { return __builtin_amdgcn_workitem_id_x(); }
  __device__ unsigned int get_y() const { return __builtin_amdgcn_workitem_id_y(); }
  __device__ unsigned int get_z() const { return __builtin_amdgcn_workitem_id_z(); }
};
struct r4_hip_block_idx {
  __declspec(property(get = get_x)) unsigned int x;
  __declspec(property(get = get_y)) unsigned int y;
  __declspec(property(get = get_z)) unsigned int z;
  __device__ unsigned int get_x() const { return __builtin_amdgcn_workgroup_id_x(); }
  __device__ unsigned int get_y() const { return __builtin_amdgcn_workgroup_id_y(); }
  __device__ unsigned int get_z() const { return __builtin_amdgcn_workgroup_id_z(); }
};
struct r4_hip_block_dim {
  __declspec(property(get = get_x)) unsigned int x;
  __declspec(property(get = get_y)) unsigned int y;
  __declspec(property(get = get_z)) unsigned int z;
  __device__ unsigned int get_x() const { return __builtin_amdgcn_workgroup_size_x(); }
  __device__ unsigned int get_y() const { return __builtin_amdgcn_workgroup_size_y(); }
  __device__ unsigned int get_z() const { return __builtin_amdgcn_workgroup_size_z(); }
};
struct r4_hip_grid_dim {  // in workgroups, as HIP's gridDim
  __declspec(property(get = get_x)) unsigned int x;
  __declspec(property(get = get_y)) unsigned int y;
  __declspec(property(get = get_z)) unsigned int z;
  __device__ unsigned int get_x() const { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }
  __device__ unsigned int get_y() const { return __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(); }
  __device__ unsigned int get_z() const { return __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z(); }
};
// the work-item's index in its workgroup
extern const __device__ __attribute__((weak)) r4_hip_thread_idx threadIdx;
// the workgroup's index in the grid
extern const __device__ __attribute__((weak)) r4_hip_block_idx blockIdx;
// work-items per workgroup
extern const __device__ __attribute__((weak)) r4_hip_block_dim blockDim;
// workgroups per grid
extern const __device__ __attribute__((weak)) r4_hip_grid_dim gridDim;

// wave size of the target (32 on RDNA as compiled here, 64 on CDNA)
#define warpSize __builtin_amdgcn_wavefrontsize()
// workgroup barrier with LDS/global release-acquire at workgroup scope
__device__ inline void __syncthreads() { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); }
// device-wide memory fence
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
// workgroup-wide memory fence
__device__ inline void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
// lane index in the wave (mbcnt counts the set lanes below this one)
__device__ inline int __lane_id() { return __builtin_amdgcn_wavefrontsize() == 32 ? (int)__builtin_amdgcn_mbcnt_lo(~0u, 0u) : (int)__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
// value of `v` in lane (lane ^ mask), within groups of `width` lanes (ds_bpermute, as HIP)
__device__ inline int __shfl_xor(int v, int mask, int width = __builtin_amdgcn_wavefrontsize()) { const int self = __lane_id(); int idx = self ^ mask; idx = idx >= ((self + width) & ~(width - 1)) ? self : idx; return __builtin_amdgcn_ds_bpermute(idx << 2, v); }
// __shfl_xor for unsigned int
__device__ inline unsigned int __shfl_xor(unsigned int v, int mask, int width = __builtin_amdgcn_wavefrontsize()) { return (unsigned int)__shfl_xor((int)v, mask, width); }
// __shfl_xor for float
__device__ inline float __shfl_xor(float v, int mask, int width = __builtin_amdgcn_wavefrontsize()) { return __builtin_bit_cast(float, __shfl_xor(__builtin_bit_cast(int, v), mask, width)); }
// device-scope relaxed atomic add, returns the old value
__device__ inline unsigned int atomicAdd(unsigned int* p, unsigned int v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
// device-scope relaxed atomic add on int
__device__ inline int atomicAdd(int* p, int v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
// device-scope relaxed atomic add on float
__device__ inline float atomicAdd(float* p, float v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
// device-scope relaxed atomic max, returns the old value
__device__ inline unsigned int atomicMax(unsigned int* p, unsigned int v) { return __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
// integer min
__device__ inline int min(int a, int b) { return a < b ? a : b; }
// integer max
__device__ inline int max(int a, int b) { return a > b ? a : b; }
// unsigned min
__device__ inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
// unsigned max
__device__ inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
// float max (IEEE maxNum)
__device__ inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
// float min (IEEE minNum)
__device__ inline float fminf(float a, float b) { return __builtin_fminf(a, b); }
// float |x|
__device__ inline float fabsf(float a) { return __builtin_fabsf(a); }
// round to integral, current mode (nearest even)
__device__ inline float rintf(float a) { return __builtin_rintf(a); }
// double square root
__device__ inline double sqrt(double a) { return __builtin_sqrt(a); }
// float square root
__device__ inline float sqrtf(float a) { return __builtin_sqrtf(a); }
// float bits as unsigned
__device__ inline unsigned int __float_as_uint(float f) { return __builtin_bit_cast(unsigned int, f); }
// unsigned bits as float
__device__ inline float __uint_as_float(unsigned int u) { return __builtin_bit_cast(float, u); }
// float bits as int
__device__ inline int __float_as_int(float f) { return __builtin_bit_cast(int, f); }
// int bits as float
__device__ inline float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
// HIP's float4 (a struct here: the kernels use .x .. .w only)
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
// HIP's float2
struct __attribute__((aligned(8))) float2 { float x, y; };

#endif  // R4_CLANG_HIP_PRELUDE_H
