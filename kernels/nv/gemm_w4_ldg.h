// The ldg generation of gemm_w4a16_nt and gemm_w4a8_nt (R4_GEN=2): the same packed weight (the
// sm80 layout, quant/layout/sm80.h), the same arguments and results, the mma.sync fragments of
// the first generation (kernels/nv/mma_sm80.h). Every lane loads its own weight fragments and
// scales straight into registers, through a ring of 2 R4_ST one-block slots: a slot is refilled
// with the block 2 R4_ST ahead as soon as its math is done, so 2 R4_ST - 1 blocks stay in flight.
// The block's activation rows of its split are copied into shared memory once (cp.async, after
// the PDL wait, while the ring's first loads are in flight); each lane reads its fragments from
// there one block ahead of the math.
//
// Session 9 (docs/PERF.md): before, a batch of R4_ST blocks' weights AND activation fragments was
// loaded into registers, two batches ping-pong: the activations took half or more of the
// registers (8 per 8-row sub-tile per block for 16-bit), which kept the kernels at 150-250
// registers and 8 warps per SM. Reading the activations from global memory one block ahead
// instead (no staging) put an L2 round trip behind every block: gate_up M = 8, SK = 1, w4a8
// took 61.8 us (ncu: L1 hit rate 44%).
//
// Why (docs/PERF.md, session 6). The read floor kernel (kernels/read_floor.cu), which streams the
// same bytes with plain 16-byte loads into registers, is the only kernel of the repository at the
// read floor; the shared-memory rings of both other generations stream below it even with the math
// removed (the sm90a bulk-copy ring: 1.31x the floor on 17408x5120, session 4 lesions). A GEMM at
// M <= 16 needs almost no math per byte, so it can take the floor kernel's access pattern: one
// 512-byte contiguous load per warp per (16-row tile, 64-K block), several in flight per lane.
// The first register-ring version of the mma.sync generation (0286dcf) ran at ~900 GB/s because
// each block's loads were consumed right after being issued (one DRAM latency per block per
// warp); here a whole batch (R4_ST x R4_NPW x 512 B per warp) is in flight while the previous
// one is computed.
//
// Work split as the mma.sync generation (kernels/gemm_common.h): grid x = N tiles / (WV*NPW),
// y = SK splits of the 64-K blocks, z = M / (16*MB); each warp owns NPW 16-row tiles of the
// block's K range. The block's warps read the same activation fragments at the same time, so the
// activations (written by the previous kernel, read only after the PDL wait) go through L1.
// Group scales are exact: the A registers hold the codes (exact in f16, bf16 and int8), each
// 128-K group's products accumulate in a per-group partial (f32 for 16-bit activations, int32
// for int8) promoted once with its f32 scale, as the sm90a generation does. Split-K:
// kernels/splitk.h (deterministic).
//
// Config (kernels/config.hpp is_valid_ldg): R4_WV warps per block, R4_SK, R4_MB, R4_NPW, R4_NT
// (L2 evict-first weight loads), R4_ST = 64-K blocks per register batch.
//
// Activation kinds (R4_ACT_KIND): 0 f16, 1 bf16 (gemm_w4a16_nt), 2 int8 (gemm_w4a8_nt), and the
// fp8-activation GEMMs of issue 13 on sm_89+ (mma.sync m16n8k32 .e4m3, kernels/nv/mma_sm89.h):
// 3 e4m3 x int4 in the sm80 layout (gemm_w4a8fp8_nt: GPTQ/AutoRound symmetric, code c - 8; the
// weight bytes are code * 2^-9, so the group scale carries 2^9 and each group's f32 partial is
// promoted once, as for int8), 4 e4m3 x MXFP4 in the mx_sm89 layout (gemm_mxfp4a8fp8_nt,
// quant/layout/mx_sm89.h: e2m1 * 2^-6 bytes and one e8m0 exponent per 32 K, so every k32 step's
// MMA goes into a zeroed partial that is promoted at once with 2^(e - 121); the lane's B bytes
// of a step are 8 contiguous activation bytes, two 8-byte loads per block).
#ifndef R4_KERNELS_NV_GEMM_W4_LDG_H
#define R4_KERNELS_NV_GEMM_W4_LDG_H

#include "kernels/nv/mma_sm80.h"
#include "kernels/splitk.h"
#include "quant/layout/sm80.h"
#if R4_ACT_KIND >= 3
#include "kernels/nv/mma_sm89.h"
#endif

#ifndef R4_ST
#error "R4_ST (64-K blocks per register batch) must be defined for the ldg generation"
#endif
#ifndef R4_ACT_KIND
#error "R4_ACT_KIND (0 f16, 1 bf16, 2 int8, 3 e4m3 x int4, 4 e4m3 x mxfp4) must be defined"
#endif
#ifndef R4_BROKEN_SCALE
#define R4_BROKEN_SCALE \
  0  // TEST ONLY: 1 reads the next group's scale (a kernel the checks must catch)
#endif
#ifndef R4_TEST_PDL_LATE_WAIT
#define R4_TEST_PDL_LATE_WAIT 0  // TEST ONLY: 1 reads the first activations before the PDL wait
#endif

#define R4L_MSUB (2 * R4_MB)         // 8-row activation sub-tiles per block
#define R4L_A8 (R4_ACT_KIND >= 2)    // one-byte activations (int8, e4m3)
#define R4L_AV (R4L_A8 ? 1 : 2)      // 16-byte activation vectors per lane per block
#define R4L_BPB (R4L_A8 ? 64 : 128)  // activation bytes per row per 64-K block
// Shared-memory row stride of the staged activations for splits of at most nkb 64-K blocks
// (mirrored by ldg_act_stride in kernels/config.hpp). A quarter warp's 16-byte reads cover rows
// g and g+1: 16-bit rows are padded to 16 mod 128 bytes, one-byte rows to 64 mod 128, so the
// two rows land on distinct banks.
#define R4L_STRIDE(nkb) (R4L_A8 ? (nkb)*64 + (((nkb)&1) ? 0 : 64) : (nkb)*128 + 16)
// int8: the A bytes are 16*code (dequant_s8), so the scale carries 1/16; e4m3 x int4: code * 2^-9
// (kernels/nv/cvt_fp8.h), so 2^9; 16-bit: the codes. (MXFP4 folds its exponent per step instead.)
#define R4L_CODE_SCALE (R4_ACT_KIND == 2 ? 0.0625f : R4_ACT_KIND == 3 ? 512.0f : 1.0f)

#if R4_ACT_KIND == 2
typedef i32 r4l_part_t;
#else
typedef float r4l_part_t;
#endif

// One ring slot: one 64-K block of the warp's NPW tiles (one 16-byte fragment per lane each) and
// the scale dwords of rows g and g+8 of the block's group (MXFP4: the block's one dword of four
// e8m0 exponents, s[..][0]).
struct R4LSlot {
  u32x4 w[R4_NPW];
  u32 s[R4_NPW][2];
};
// The lane's activation bytes of one 64-K block for every live 8-row sub-tile.
struct R4LAct {
  u32x4 a[R4L_MSUB][R4L_AV];
};

// A slot's loads (no kernel writes weights: they may be issued before the PDL wait).
__device__ inline void r4l_load_slot(R4LSlot& b, const u32x4* const (&wp)[R4_NPW],
                                     const u32* const (&sp)[R4_NPW], int kb, int G, int g) {
  const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    b.w[p] = r4_ld_weight<R4_NT>(wp[p] + (i64)kb * 32);
#if R4_ACT_KIND == 4
    // mx_sm89: 8 exponent dwords per (tile, block), dword g for rows g and g+8 (the broken
    // kernel reads the next group's first block's, wrapping).
    b.s[p][0] = r4_ld_u32(sp[p] + (R4_BROKEN_SCALE ? 2 * grp : kb) * 8 + g);
#else
    b.s[p][0] = r4_ld_u32(sp[p] + grp * 16 + g);
    b.s[p][1] = r4_ld_u32(sp[p] + grp * 16 + g + 8);
#endif
  }
}

// A batch: R4_ST consecutive blocks' slots, loaded together and waited on together. Blocks past
// the split's end are clamped to its last block (their math is skipped).
struct R4LBatch {
  R4LSlot slot[R4_ST];
};
__device__ inline void r4l_load_batch(R4LBatch& b, const u32x4* const (&wp)[R4_NPW],
                                      const u32* const (&sp)[R4_NPW], int kb0, int kb_last, int G,
                                      int g) {
#pragma unroll
  for (int u = 0; u < R4_ST; ++u) r4l_load_slot(b.slot[u], wp, sp, min(kb0 + u, kb_last), G, g);
}

// A block's activation loads, from the block's staged rows in shared memory: `srow[j]` is the
// lane's row of sub-tile j (clamped to the last live row: a row past M only feeds output columns
// that are never stored), already offset by its 16 * t (int8, e4m3) or 32 * t (16-bit) bytes, and
// `off` the block's offset in the split. Sub-tiles with no live row are not loaded (`live`).
__device__ inline void r4l_load_act(R4LAct& b, const r4_saddr (&srow)[R4L_MSUB], int live,
                                    int off) {
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j)
    if (j < live) {
#if R4_ACT_KIND == 4
      // k 8t..8t+7 (.x, .y: step 0) and 32+8t..32+8t+7 (.z, .w: step 1)
      asm("ld.shared.v2.u32 {%0,%1}, [%2];\n"
          : "=r"(b.a[j][0].x), "=r"(b.a[j][0].y)
          : "r"(srow[j] + off)
          : "memory");
      asm("ld.shared.v2.u32 {%0,%1}, [%2];\n"
          : "=r"(b.a[j][0].z), "=r"(b.a[j][0].w)
          : "r"(srow[j] + off + 32)
          : "memory");
#else
#pragma unroll
      for (int v = 0; v < R4L_AV; ++v) b.a[j][v] = r4_lds16(srow[j] + off + 16 * v);
#endif
    }
}

// The math of block kb (< kb_end); a group's partial is promoted at its last block in this split.
__device__ inline void r4l_compute(const R4LSlot& b, const R4LAct& x, int kb, int kb_end, int live,
                                   r4l_part_t (&part)[R4_NPW][R4L_MSUB][4],
                                   float (&acc)[R4_NPW][R4L_MSUB][4]) {
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
#if R4_ACT_KIND == 2 || R4_ACT_KIND == 3
    u32 a0[4], a1[4];
#if R4_ACT_KIND == 2
    r4nv::dequant_s8(b.w[p].x, b.w[p].y, a0);  // k32 step 0
    r4nv::dequant_s8(b.w[p].z, b.w[p].w, a1);  // k32 step 1
#else
    r4nv::dequant_e4m3_int4(b.w[p].x, b.w[p].y, a0);
    r4nv::dequant_e4m3_int4(b.w[p].z, b.w[p].w, a1);
#endif
#pragma unroll
    for (int j = 0; j < R4L_MSUB; ++j)
      if (j < live) {
#if R4_ACT_KIND == 2
        r4nv::mma_s8(part[p][j], a0, x.a[j][0].x, x.a[j][0].y);
        r4nv::mma_s8(part[p][j], a1, x.a[j][0].z, x.a[j][0].w);
#else
        r4nv::mma_e4m3(part[p][j], a0, x.a[j][0].x, x.a[j][0].y);
        r4nv::mma_e4m3(part[p][j], a1, x.a[j][0].z, x.a[j][0].w);
#endif
      }
#elif R4_ACT_KIND == 4 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // sm_90: the f16 route (kernels/nv/mma_sm89.h). Per k32 step s': two m16n8k16 steps, h =
    // 0 / 1 over the lane's real k 32s' + 8t + 4h + 0..3 (dword 2s' + h of the weights, .x/.y
    // or .z/.w of the activations), into a zeroed partial promoted by 2^(e - 113).
    const u32 ew = b.s[p][0];
    const u32 w4[4] = {b.w[p].x, b.w[p].y, b.w[p].z, b.w[p].w};
#pragma unroll
    for (int st = 0; st < 2; ++st) {
      u32 af[2][4];
      r4nv::e2m1x4_to_f16_frag(w4[2 * st], af[0]);
      r4nv::e2m1x4_to_f16_frag(w4[2 * st + 1], af[1]);
      const float f0 = r4nv::e8m0_times_2p14((ew >> (8 * st)) & 0xFFu);
      const float f1 = r4nv::e8m0_times_2p14((ew >> (16 + 8 * st)) & 0xFFu);
#pragma unroll
      for (int j = 0; j < R4L_MSUB; ++j)
        if (j < live) {
          float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const u32 av = st ? (h ? x.a[j][0].w : x.a[j][0].z) : (h ? x.a[j][0].y : x.a[j][0].x);
            r4nv::mma_f16(d, af[h], r4nv::e4m3x2_to_f16x2(av), r4nv::e4m3x2_to_f16x2(av >> 16));
          }
          acc[p][j][0] = fmaf(d[0], f0, acc[p][j][0]);
          acc[p][j][1] = fmaf(d[1], f0, acc[p][j][1]);
          acc[p][j][2] = fmaf(d[2], f1, acc[p][j][2]);
          acc[p][j][3] = fmaf(d[3], f1, acc[p][j][3]);
        }
    }
#elif R4_ACT_KIND == 4
    // Per k32 step: the step's exponents of rows g and g+8 (bytes s' and 2 + s' of the
    // block's dword), an MMA into a zeroed partial, one FMA per element into acc.
    const u32 ew = b.s[p][0];
    const u32 w4[4] = {b.w[p].x, b.w[p].y, b.w[p].z, b.w[p].w};
#pragma unroll
    for (int st = 0; st < 2; ++st) {
      u32 af[4];
      r4nv::dequant_e4m3_e2m1(w4[2 * st], w4[2 * st + 1], af);
      const float f0 = r4nv::e8m0_times_64((ew >> (8 * st)) & 0xFFu);
      const float f1 = r4nv::e8m0_times_64((ew >> (16 + 8 * st)) & 0xFFu);
#pragma unroll
      for (int j = 0; j < R4L_MSUB; ++j)
        if (j < live) {
          float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          r4nv::mma_e4m3(d, af, st ? x.a[j][0].z : x.a[j][0].x, st ? x.a[j][0].w : x.a[j][0].y);
          acc[p][j][0] = fmaf(d[0], f0, acc[p][j][0]);
          acc[p][j][1] = fmaf(d[1], f0, acc[p][j][1]);
          acc[p][j][2] = fmaf(d[2], f1, acc[p][j][2]);
          acc[p][j][3] = fmaf(d[3], f1, acc[p][j][3]);
        }
    }
#else
    const u32 w4[4] = {b.w[p].x, b.w[p].y, b.w[p].z, b.w[p].w};
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      u32 af[4];
#if R4_ACT_KIND == 1
      r4nv::dequant_bf16_codes(w4[s], af);
#else
      r4nv::dequant_f16_codes(w4[s], af);
#endif
#pragma unroll
      for (int j = 0; j < R4L_MSUB; ++j)
        if (j < live) {
          // The layout's k-permutation on the activations (quant/layout/sm80.h): dwords 2s and
          // 2s+1 of the lane's 16 k hold k 4s..4s+3; b0 = (4s, 4s+2), b1 = (4s+1, 4s+3).
          const u32x4& h = x.a[j][s >> 1];
          const u32 lo = (s & 1) ? h.z : h.x;
          const u32 hi = (s & 1) ? h.w : h.y;
          const u32 b0 = r4nv::prmt(lo, hi, 0x5410u);
          const u32 b1 = r4nv::prmt(lo, hi, 0x7632u);
#if R4_ACT_KIND == 1
          r4nv::mma_bf16(part[p][j], af, b0, b1);
#else
          r4nv::mma_f16(part[p][j], af, b0, b1);
#endif
        }
    }
#endif
  }
  if (R4_ACT_KIND != 4 && ((kb & 1) || kb + 1 == kb_end)) {  // end of a group or the split
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const float w0 = r4_f16_to_f32(b.s[p][0]) * R4L_CODE_SCALE;
      const float w1 = r4_f16_to_f32(b.s[p][1]) * R4L_CODE_SCALE;
#pragma unroll
      for (int j = 0; j < R4L_MSUB; ++j) {
        acc[p][j][0] = fmaf((float)part[p][j][0], w0, acc[p][j][0]);
        acc[p][j][1] = fmaf((float)part[p][j][1], w0, acc[p][j][1]);
        acc[p][j][2] = fmaf((float)part[p][j][2], w1, acc[p][j][2]);
        acc[p][j][3] = fmaf((float)part[p][j][3], w1, acc[p][j][3]);
#pragma unroll
        for (int e = 0; e < 4; ++e) part[p][j][e] = 0;
      }
    }
  }
}

// The math of one batch: blocks kb0 .. kb0 + R4_ST - 1 that are < kb_end, each block's
// activation fragments read from shared memory one block ahead.
__device__ inline void r4l_compute_batch(const R4LBatch& b, const r4_saddr (&srow)[R4L_MSUB],
                                         int kb0, int kb_begin, int kb_end, int live,
                                         r4l_part_t (&part)[R4_NPW][R4L_MSUB][4],
                                         float (&acc)[R4_NPW][R4L_MSUB][4]) {
  R4LAct x[2];
  r4l_load_act(x[0], srow, live, (kb0 - kb_begin) * R4L_BPB);
#pragma unroll
  for (int u = 0; u < R4_ST; ++u) {
    const int kb = kb0 + u;
    if (kb < kb_end) {  // uniform
      if (u + 1 < R4_ST && kb + 1 < kb_end)
        r4l_load_act(x[(u + 1) & 1], srow, live, (kb + 1 - kb_begin) * R4L_BPB);
      r4l_compute(b.slot[u], x[u & 1], kb, kb_end, live, part, acc);
    }
  }
}

// act: [M, K] f16/bf16 bits (R4_ACT_KIND 0/1), int8 (2) or e4m3 (3, 4); sa: [M] f32 row scales
// (one-byte kinds only).
__device__ inline void r4l_gemm(const void* __restrict__ act, const float* __restrict__ sa,
                                const u32x4* __restrict__ wq, const u32* __restrict__ wsz,
                                u16* __restrict__ C, void* __restrict__ ws, int M, int N, int K) {
  if (R4_PDL_TRIGGER == 1) r4_pdl_launch_dependents();
  const int lane = r4_lane();
  const int warp = (int)(threadIdx.x >> 5);
  const int g = lane >> 2;
  const int t = lane & 3;
  const int ntiles = N >> 4;
  const int KB = K >> 6;
  const int G = K >> 7;
  const int tile_base = ((int)blockIdx.x * R4_WV + warp) * R4_NPW;
  const int kb_begin = (int)(((i64)blockIdx.y * KB) / R4_SK);
  const int kb_end = (int)(((i64)(blockIdx.y + 1) * KB) / R4_SK);
  const int m_base = (int)blockIdx.z * R4_MB * 16;
  const int live = min(R4L_MSUB, (M - m_base + 7) >> 3);  // sub-tiles with a live row

  const u32x4* wp[R4_NPW];
  const u32* sp[R4_NPW];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    const int tile = min(tile_base + p, ntiles - 1);  // idle warps re-read a valid tile
    wp[p] = wq + (i64)tile * KB * 32 + lane;
    sp[p] = wsz + (i64)tile * G * 16;  // mx_sm89: KB blocks x 8 dwords = the same G * 16
  }
  // The block's activation rows of its split, staged once in shared memory (stride R4L_STRIDE).
  extern __shared__ __align__(16) char r4_smem[];
  const r4_saddr sbase = r4_saddr_of(r4_smem);
  const int stride = R4L_STRIDE((KB + R4_SK - 1) / R4_SK);
  const int rows = min(R4_MB * 16, M - m_base);
  r4_saddr srow[R4L_MSUB];
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j)
    srow[j] = sbase + min(8 * j + g, rows - 1) * stride +
              (R4_ACT_KIND == 4 ? 8
               : R4L_A8         ? 16
                                : 32) *
                  t;

  float acc[R4_NPW][R4L_MSUB][4];
  r4l_part_t part[R4_NPW][R4L_MSUB][4];
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int j = 0; j < R4L_MSUB; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        acc[p][j][e] = 0.0f;
        part[p][j][e] = 0;
      }

  // Prologue, shaped for programmatic dependent launch: the first batch's weights, then the wait
  // for the previous kernel (it may still be writing the activations), the block's activation rows
  // of its split into shared memory (cp.async: L2, where that kernel's writes are visible), and the
  // second batch's weights, so that both batches are in flight while the rows arrive.
  const int kb_last = kb_end - 1;
  R4LBatch b0, b1;
  r4l_load_batch(b0, wp, sp, kb_begin, kb_last, G, g);
  if (!R4_TEST_PDL_LATE_WAIT) r4_pdl_wait();
  {
    // One division per thread: rows shorter than the block are copied `per` rows per pass
    // (threads past per * vecs idle); longer rows are walked by every thread, row by row.
    const int vecs = (kb_end - kb_begin) * (R4L_BPB / 16);
    const int nthr = R4_WV * 32;
    const int per = max(1, nthr / vecs);
    const int r0 = (int)threadIdx.x / vecs;
    const int c0 = (int)threadIdx.x - r0 * vecs;
    const char* src =
        static_cast<const char*>(act) + ((i64)m_base * K + (i64)kb_begin * 64) * (R4L_A8 ? 1 : 2);
    if (vecs >= nthr) {
      for (int r = 0; r < rows; ++r)
        for (int c = (int)threadIdx.x; c < vecs; c += nthr)
          r4_cp_async16(sbase + r * stride + 16 * c, src + (i64)r * K * (R4L_A8 ? 1 : 2) + 16 * c);
    } else if (r0 < per) {
      for (int r = r0; r < rows; r += per)
        r4_cp_async16(sbase + r * stride + 16 * c0, src + (i64)r * K * (R4L_A8 ? 1 : 2) + 16 * c0);
    }
    r4_cp_async_commit();
  }
  if (kb_begin + R4_ST < kb_end) r4l_load_batch(b1, wp, sp, kb_begin + R4_ST, kb_last, G, g);
  r4_cp_async_wait<0>();
  __syncthreads();
  if (R4_TEST_PDL_LATE_WAIT) r4_pdl_wait();

  // Ping-pong: a batch is refilled with the blocks 2 R4_ST ahead as soon as its math is done, so
  // the other batch's loads stay in flight through it. Two batches, each waited on as a whole: a
  // ring of one-block slots refilled one at a time measured slower (docs/PERF.md session 9; not
  // verified in SASS, the likely cause is that ptxas tracks a warp's outstanding loads with a
  // few scoreboards, so a wait for one slot also waits for slots issued after it).
  for (int kb0 = kb_begin; kb0 < kb_end; kb0 += 2 * R4_ST) {
    r4l_compute_batch(b0, srow, kb0, kb_begin, kb_end, live, part, acc);
    if (kb0 + 2 * R4_ST < kb_end) r4l_load_batch(b0, wp, sp, kb0 + 2 * R4_ST, kb_last, G, g);
    const int k1 = kb0 + R4_ST;
    if (k1 >= kb_end) break;
    r4l_compute_batch(b1, srow, k1, kb_begin, kb_end, live, part, acc);
    if (k1 + 2 * R4_ST < kb_end) r4l_load_batch(b1, wp, sp, k1 + 2 * R4_ST, kb_last, G, g);
  }
  if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();

  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M,
                N};
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j) {
    const int m = m_base + 8 * j + 2 * t;
#if R4L_A8
    const float sa0 = m < M ? sa[m] : 0.0f;
    const float sa1 = m + 1 < M ? sa[m + 1] : 0.0f;
#else
    const float sa0 = 1.0f, sa1 = 1.0f;
#endif
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      if (tile_base + p < ntiles) {
        const int n0 = (tile_base + p) * 16 + g;
        o.put(m, n0, acc[p][j][0] * sa0);
        o.put(m + 1, n0, acc[p][j][1] * sa1);
        o.put(m, n0 + 8, acc[p][j][2] * sa0);
        o.put(m + 1, n0 + 8, acc[p][j][3] * sa1);
      }
    }
  }
  r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                   R4_MB * 16);
}

#endif  // R4_KERNELS_NV_GEMM_W4_LDG_H
