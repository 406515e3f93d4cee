// Probe kernels for tests/scripts/sass_ctrl_test.py: each one has a few instructions whose
// opcodes and scoreboard use the test checks (scripts/sass_ctrl.py reads the cubin nvcc makes).
#include <cstdint>

// One 16-byte global load whose value is stored: the store waits on the load's scoreboard.
extern "C" __global__ void probe_ldg(const uint4* p, uint4* q) { q[threadIdx.x] = p[threadIdx.x]; }

// Six loads feeding one f16 MMA, and one int8 MMA.
extern "C" __global__ void probe_mma(const unsigned* a, float* d, int* e) {
  unsigned a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], b0 = a[4], b1 = a[5];
  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  int i0 = 0, i1 = 0, i2 = 0, i3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};"
      : "+r"(i0), "+r"(i1), "+r"(i2), "+r"(i3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  d[0] = c0 + c1 + c2 + c3;
  e[0] = i0 + i1 + i2 + i3;
}

// cp.async into shared memory, a group commit and a wait, a barrier, a shared load.
extern "C" __global__ void probe_cp_async(const uint4* p, float* d) {
  __shared__ uint4 s[256];
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(p + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  __syncthreads();
  d[threadIdx.x] = static_cast<float>(s[255 - threadIdx.x].x);
}

// Three cp.async groups, waited down to 2, 1 and 0 outstanding (DEPBAR's count).
extern "C" __global__ void probe_wait_groups(const uint4* p, float* d) {
  __shared__ uint4 s[768];
  for (int i = 0; i < 3; ++i) {
    const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(&s[threadIdx.x + 256 * i]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa),
                 "l"(p + threadIdx.x + 256 * i));
    asm volatile("cp.async.commit_group;");
  }
  asm volatile("cp.async.wait_group 2;");
  d[0] = static_cast<float>(s[threadIdx.x].x);
  asm volatile("cp.async.wait_group 1;");
  d[1] = static_cast<float>(s[threadIdx.x + 256].x);
  asm volatile("cp.async.wait_group 0;");
  d[2] = static_cast<float>(s[threadIdx.x + 512].x);
}

// Two pairs of loads, the first pair used (and stored) before the second: ptxas gives the pairs
// different scoreboards, so the first wait leaves the second pair in flight.
__device__ __forceinline__ uint4 ldw(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
extern "C" __global__ void probe_two_batches(const uint4* p, unsigned* q) {
  const uint4 a0 = ldw(p + threadIdx.x), a1 = ldw(p + threadIdx.x + 256);
  const uint4 b0 = ldw(p + threadIdx.x + 512), b1 = ldw(p + threadIdx.x + 768);
  q[threadIdx.x] = a0.x ^ a0.y ^ a0.z ^ a0.w ^ a1.x ^ a1.y ^ a1.z ^ a1.w;
  q[threadIdx.x + 256] = b0.x ^ b0.y ^ b0.z ^ b0.w ^ b1.x ^ b1.y ^ b1.z ^ b1.w;
}
