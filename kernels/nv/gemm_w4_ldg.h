// The ldg generation of gemm_w4a16_nt and gemm_w4a8_nt (R4_GEN=2): the same packed weight (the
// sm80 layout, quant/layout/sm80.h), the same arguments and results, the mma.sync fragments of
// the first generation (kernels/nv/mma_sm80.h), but NO shared memory: every lane loads its own
// weight fragments, scales and activation fragments straight into registers, a batch of R4_ST
// 64-K blocks at a time, and the next batch's loads are issued before the current batch's math
// (two register buffers, ping-pong).
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
// one is computed. Session 9 found that this is not what the SASS does: ptxas signals all of
// these loads on one scoreboard, so the wait before a batch's math also waits for the next batch,
// and a warp has one batch in flight per wait, not two (scripts/sass_ctrl.py; docs/PERF.md).
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

// EXPERIMENT ONLY (r4kern --one --define, timed unchecked and labelled a lesion; the sweep never
// compiles one): bit 1 leaves out the split-K reduction (kernels/splitk.h r4_splitk_finish), bit
// 2 the dequantisation and MMAs (every loaded word is still folded into an accumulator, so the
// loads stay); bits 4 and 8 reach the cluster reduction (R4_SPLITK_LESION: 4 stops after its first
// cluster barrier, 8 leaves out its output stores). The results are wrong; the time says what the
// left-out part costs.
#ifndef R4L_LESION
#define R4L_LESION 0
#endif
// The one-byte kinds' activation row scales for the epilogue, loaded all at once before it (1)
// instead of two per 8-row sub-tile between its stores (0, as before): the sm90a generation's
// R4G_SA_EARLY (session 30). Default 1 since session 31's A/B (H100, 2 x 2 alternating runs,
// docs/PERF.md "Session 31"): 0.04-0.17 us less per w4a8 config, none slower; 0 for an A/B only.
#ifndef R4L_SA_EARLY
#define R4L_SA_EARLY 1
#endif
#define R4_SPLITK_LESION (R4L_LESION >> 2)
#include "kernels/nv/mma_sm80.h"
#if R4_ACT_KIND <= 2  // the int4 kinds: kernels/config.hpp splitk_cluster says why not fp8 ones
#define R4_SPLITK_CLUSTER 1  // launched as a cluster of its SK splits on sm_90+ (kernels/splitk.h)
#endif
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
// TEST ONLY: 1 reads the next group's scale (a kernel the checks must catch)
#define R4_BROKEN_SCALE 0
#endif
#ifndef R4L_FULL
// 1: the main loop's unchecked iterations (r4l_gemm); 0: every iteration checked, as before
// session 10 (A/B runs: r4kern --one --define R4L_FULL=0). On for the int4 kinds (w4a16, w4a8),
// off for the fp8-activation kinds, which ran slower with them (H200 sweeps, docs/PERF.md
// session 10: MXFP4 up to 23%, GPTQ-fp8 about 1%). They cost registers (NVRTC 13.0, sm_90a, WV 4,
// SK 2: w4a16 (MB, NPW, ST) = (1, 1, 2) 160 against ~146), with no spill in the sweep's 2,488
// sm_90a compiles.
#define R4L_FULL (R4_ACT_KIND <= 2)
#endif
#ifndef R4L_WPERM
// 1 (default since session 11): the 16-bit kinds permute each weight dword's bytes (one PRMT)
// instead of the activations (two PRMT per activation sub-tile and k16 step). An MMA's sum over
// its k16 does not depend on which real k sits at which logical k, as long as A and B agree.
// With 0, logical (2t, 2t+1) is real (4s, 4s+2) on both sides; swapping weight bytes 1 and 2
// makes it (4s, 4s+1) in A, the activations' memory order, so B takes the activation dwords as
// they are (emulated exactly: tests/scripts/fragment_order_test.py). H200 A/B with
// R4L_STATIC_LIVE (docs/PERF.md session 11): faster or equal on all 13 configs tried.
#define R4L_WPERM 1
#endif
#ifndef R4L_STATIC_LIVE
// 1: the main loop compiled per live sub-tile count, chosen once per block, in place of a uniform
// branch per sub-tile and block. SASS (nvcc sm_90a, w4a8 (2, 1, 1, 2, 0, 2)): 640 instructions
// per 4 blocks with the run-time count, 512 with it fixed at 2, 384 at 1. On for the int4 kinds
// since session 11 (H200 A/B, docs/PERF.md: with R4L_WPERM, 0-17% faster on 13 of 13 configs);
// the fp8-activation kinds keep the run-time count until measured (their PTX is unchanged).
#define R4L_STATIC_LIVE (R4_ACT_KIND <= 2)
#endif
// The small tuples, which launch with a bound of 20 warps per SM (R4L_MIN_BLOCKS) and, in the
// 16-bit kinds, load their activations at the math (R4L_JIT_ACT): blocks of four warps with one
// tile each, one 16-row M block and batches of two 64-K blocks, in the int4 kinds, on sm_90
// (measured there; at sm_80 and sm_89 the 16-bit ones spill 16 B at 96 registers). Only WV 4:
// the same tuple at WV 2 keeps its natural registers, so the race holds both forms (the bound
// pays on grids with more warps than fit at natural registers and costs where they fit).
// nvcc's host pass, where __CUDA_ARCH__ is undefined, sees 0: only device code depends on it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define R4L_SMALL_TUPLE (R4_ACT_KIND <= 2 && R4_WV == 4 && R4_NPW == 1 && R4_MB == 1 && R4_ST == 2)
#else
#define R4L_SMALL_TUPLE 0
#endif
#ifndef R4L_MIN_BLOCKS
// The launch bound's minimum blocks per SM, i.e. a register cap of 64K / (R4L_MIN_BLOCKS x
// threads) (--define R4L_MIN_BLOCKS=N for A/B runs; 20 / WV blocks: 96 registers, 20 warps). At
// M <= 16 these kernels wait on their loads at 2-2.5 warps per scheduler (ncu, H200, docs/PERF.md
// "Session 20": 4.0 warps stalled on long_scoreboard per issued instruction, w4a8
// (2, 2, 1, 2, 0, 2) gate_up M = 1), so a grid of more warps than fit needs resident warps. The
// small tuples compile at 96 registers without spills (NVRTC 13.0 sm_90; natural: w4a8 128,
// w4a16 151, 128 with R4L_JIT_ACT), so 20 warps per SM in place of 16 (w4a16: 12). H200, GEMM
// alone: w4a8 (4, 2, 1, 1, 0, 2) gate_up M = 1 20.79 -> 14.90 us, M = 16 23.63 -> 18.60; w4a16
// (4, 2, 1, 1, 0, 2) gate_up M = 1 24.67 -> 21.20; where the grid fits it costs (w4a16
// (4, 4, 1, 1, 0, 2) o_proj M = 16 6.27 -> 6.73). The sweep with the bound on WV 4 (aeddb13):
// best 4-bit gate_up M = 1 19.20 -> 17.25 us; with it on WV 2 instead (e2d2bbe) 18.00, and small
// shapes lost up to 4.6% (their WV 2 winners had needed natural registers). 80 registers (24
// warps) ran slower; the 16-bit kinds spill at 96 without R4L_JIT_ACT.
#if R4L_SMALL_TUPLE
#define R4L_MIN_BLOCKS (20 / R4_WV)
#else
#define R4L_MIN_BLOCKS 1
#endif
#endif
// The ldg kernels' entry points (kernels/gemm_*_nt.cu).
#define R4L_LAUNCH_BOUNDS __launch_bounds__(R4_WV * 32, R4L_MIN_BLOCKS)
#ifndef R4L_JIT_ACT
// 1: each block's activation fragments are loaded at its math (L1 hits: every warp of the SM
// reads the same rows) instead of being held in the register batches: 2 x ST x 2MB x (4 or 8)
// registers fewer. On for the 16-bit kinds' small tuples, which then compile at the 96 registers
// of 20 warps per SM without spills (NVRTC 13.0 sm_90: w4a16 (2, 2, 1, 1, 0, 2) 149 natural,
// 96 with 348 B spilled without it). Alone it is slower (the L1 latency is exposed per block). Int4
// kinds only (--define R4L_JIT_ACT=0/1 for A/B runs).
#define R4L_JIT_ACT (R4L_SMALL_TUPLE && R4_ACT_KIND <= 1)
#endif
#if R4L_JIT_ACT && R4_ACT_KIND > 2
#error "R4L_JIT_ACT is for the int4 kinds (R4_ACT_KIND 0-2)"
#endif
#ifndef R4_TEST_PDL_LATE_WAIT
#define R4_TEST_PDL_LATE_WAIT 0  // TEST ONLY: 1 reads the first activations before the PDL wait
#endif

// EXPERIMENT (session 16; 0, the default, compiles to nothing): before its PDL wait each warp
// asks L2 for the next R4L_L2PF bytes of each of its tiles' weights after the first batch
// (prefetch.global.L2, one 128-byte line per lane per instruction), so that a GEMM launched under
// PDL beside its quantiser (kernels::a8_gemm_options) streams weights while it waits: the
// sm90a generation streams ST stages there; the ldg one only its first batch (docs/PERF.md
// "Session 16": ldg pairs gained 0.1-0.4 us under PDL, sm90a ones 1.0-1.4).
#ifndef R4L_L2PF
#define R4L_L2PF 0
#endif

// Where griddepcontrol.wait lands in the SASS. The prologue issues the first batch's weight loads
// and then waits (weights never come from an earlier kernel), so that under PDL they stream while
// the previous kernel (the quantiser of a one-byte pair) finishes. ptxas does not keep that order
// by itself: in nvcc 13.0's sm_90a SASS of every ldg kind the wait (ACQBULK) is among the first
// ten instructions, before every load (scripts/device/sass_wait.sh on the H200, docs/PERF.md
// "Session 22"). R4L_WAIT_FENCE 1 puts, between the loads and the wait, a shared-memory store
// behind a branch that never runs (M < 0) whose value uses every weight and scale dword of the
// batch, so ptxas cannot sink those loads below it; in the SASS they, and only they, precede the
// wait (LDG.E.NA.128.CONSTANT, LDG.E.CONSTANT; session 23, call 3). Two things it needs, each
// learnt from a build that lacked it (docs/PERF.md "Session 22", "Session 23"):
//  - R4L_DEP_LD: what an earlier kernel wrote (activations, their row scales) read with weak
//    coherent ld.global. With ld.global.nc, which promises data that nothing writes while the
//    kernel runs (untrue under PDL), ptxas hoisted the activation loads above the wait, and the
//    PDL step chain, r4d's graph replay and the torch test read stale activations (cd244bb).
//  - the store's use of the weights: a store of 0 let ptxas sink the weight loads below the wait
//    once the activation loads were coherent (56e5fd4), which kept only the scale loads ahead.
// Race-style pairs under PDL (H200, us, off -> on): w4a8 gate_up M = 1 16.36 -> 15.94, M = 8
// 16.84 -> 16.62, down M = 16 13.63 -> 13.29, hidden_proj M = 1 5.09 -> 4.78, kernel_proj M = 64
// 9.66 -> 9.54, MXFP4 qkv M = 16 11.79 -> 11.67. On for w4a8 and MXFP4; off for w4a8fp8, whose
// GEMM alone ran 9% slower with any fence (gate_up M = 1 28.66 -> 31.46), and for the 16-bit
// kinds, whose races run plainly (w4a16 gate_up M = 1 alone 21.22 -> 21.69 with session 22's).
// --define R4L_WAIT_FENCE=0/1 for A/B runs.
#ifndef R4L_WAIT_FENCE
#define R4L_WAIT_FENCE (R4_ACT_KIND == 2 || R4_ACT_KIND == 4)
#endif
#ifndef R4L_DEP_LD
#define R4L_DEP_LD R4L_WAIT_FENCE
#endif
#if R4L_WAIT_FENCE && !R4L_DEP_LD
#error "R4L_WAIT_FENCE needs R4L_DEP_LD: ptxas hoists .nc activation loads above the PDL wait"
#endif

// 16 activation bytes an earlier kernel wrote (see R4L_DEP_LD). Not r4_ld_cg16 (prelude.h), the
// quantisers' coherent load: .cg skips L1, and every warp of the block reads these same bytes.
__device__ inline u32x4 r4l_ld_a16(const void* p) {
#if R4L_DEP_LD
  u32x4 v;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
#else
  return r4_ld_act16(p);
#endif
}

// One f32 row scale of the one-byte activations (written by the quantiser: see R4L_DEP_LD).
__device__ inline float r4l_ld_sa(const float* p) {
#if R4L_DEP_LD
  float v;
  asm volatile("ld.global.f32 %0, [%1];\n" : "=f"(v) : "l"(p));
  return v;
#else
  return *p;
#endif
}

#define R4L_MSUB (2 * R4_MB)         // 8-row activation sub-tiles per block
#define R4L_A8 (R4_ACT_KIND >= 2)    // one-byte activations (int8, e4m3)
#define R4L_AV (R4L_A8 ? 1 : 2)      // 16-byte activation vectors per lane per block
#define R4L_BPB (R4L_A8 ? 64 : 128)  // activation bytes per row per 64-K block
// int8: the A bytes are 16*code (dequant_s8), so the scale carries 1/16; e4m3 x int4: code * 2^-9
// (kernels/nv/cvt_fp8.h), so 2^9; 16-bit: the codes. (MXFP4 folds its exponent per step instead.)
#define R4L_CODE_SCALE (R4_ACT_KIND == 2 ? 0.0625f : R4_ACT_KIND == 3 ? 512.0f : 1.0f)

#if R4_ACT_KIND == 2
typedef i32 r4l_part_t;
#else
typedef float r4l_part_t;
#endif

// The lane's activation bytes of one 64-K block for the MXFP4 layout: k 8t..8t+7 (.x, .y: step
// 0) and 32+8t..32+8t+7 (.z, .w: step 1).
__device__ inline void r4l_ld_act8x2(u32x4& v, const char* p) {
#if R4L_DEP_LD
  asm volatile("ld.global.v2.u32 {%0,%1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "l"(p));
  asm volatile("ld.global.v2.u32 {%0,%1}, [%2];\n" : "=r"(v.z), "=r"(v.w) : "l"(p + 32));
#else
  asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "l"(p));
  asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];\n" : "=r"(v.z), "=r"(v.w) : "l"(p + 32));
#endif
}

// One batch of a warp's loads: R4_ST consecutive 64-K blocks of its NPW tiles (one 16-byte
// fragment per lane each), the scale dwords of rows g and g+8 of each block's group (MXFP4: the
// block's one dword of four e8m0 exponents, s[..][0]), and the lane's activation bytes of each
// block for every live 8-row sub-tile.
struct R4LBatch {
  u32x4 w[R4_ST][R4_NPW];
  u32 s[R4_ST][R4_NPW][2];
#if !R4L_JIT_ACT
  u32x4 a[R4_ST][R4L_MSUB][R4L_AV];
#endif
};

// The weight part of a batch (no kernel writes weights: it may be issued before the PDL wait).
// Blocks past the split's end are clamped to its last block (their math is skipped).
template <bool kFull>
__device__ inline void r4l_load_weights(R4LBatch& b, const u32x4* const (&wp)[R4_NPW],
                                        const u32* const (&sp)[R4_NPW], int kb0, int kb_last, int G,
                                        int g) {
#pragma unroll
  for (int u = 0; u < R4_ST; ++u) {
    const int kb = kFull ? kb0 + u : min(kb0 + u, kb_last);
    const int grp = R4_BROKEN_SCALE ? ((kb >> 1) + 1) % G : (kb >> 1);
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      b.w[u][p] = r4_ld_weight<R4_NT>(wp[p] + (i64)kb * 32);
#if R4_ACT_KIND == 4
      // mx_sm89: 8 exponent dwords per (tile, block), dword g for rows g and g+8 (the broken
      // kernel reads the next group's first block's, wrapping).
      b.s[u][p][0] = r4_ld_u32(sp[p] + (R4_BROKEN_SCALE ? 2 * grp : kb) * 8 + g);
#else
      b.s[u][p][0] = r4_ld_u32(sp[p] + grp * 16 + g);
      b.s[u][p][1] = r4_ld_u32(sp[p] + grp * 16 + g + 8);
#endif
    }
  }
}

// The activation part: `arow[j]` is the lane's row of sub-tile j (clamped to the last live row:
// a row past M only feeds output columns that are never stored), already offset by its 16 * t
// (int8) or 32 * t (16-bit) bytes. Sub-tiles with no live row are not loaded (`live`).
template <bool kFull>
__device__ inline void r4l_load_acts(R4LBatch& b, const char* const (&arow)[R4L_MSUB], int live,
                                     int kb0, int kb_last) {
#if R4L_JIT_ACT  // loaded at the math (r4l_compute)
  (void)b, (void)arow, (void)live, (void)kb0, (void)kb_last;
#else
#pragma unroll
  for (int u = 0; u < R4_ST; ++u) {
    const int kb = kFull ? kb0 + u : min(kb0 + u, kb_last);
#pragma unroll
    for (int j = 0; j < R4L_MSUB; ++j)
      if (j < live) {
#if R4_ACT_KIND == 4
        r4l_ld_act8x2(b.a[u][j][0], arow[j] + (i64)kb * R4L_BPB);
#else
#pragma unroll
        for (int v = 0; v < R4L_AV; ++v)
          b.a[u][j][v] = r4l_ld_a16(arow[j] + (i64)kb * R4L_BPB + 16 * v);
#endif
      }
  }
#endif
}

// A whole batch from block kb0 on (in the main loop: after the PDL wait).
template <bool kFull>
__device__ inline void r4l_load_batch(R4LBatch& b, const u32x4* const (&wp)[R4_NPW],
                                      const u32* const (&sp)[R4_NPW],
                                      const char* const (&arow)[R4L_MSUB], int live, int kb0,
                                      int kb_last, int G, int g) {
  r4l_load_weights<kFull>(b, wp, sp, kb0, kb_last, G, g);
  r4l_load_acts<kFull>(b, arow, live, kb0, kb_last);
}

// The math of one batch: blocks kb0 .. kb0 + R4_ST - 1 that are < kb_end; each group's partial
// is promoted at its last block in this split. kFull: the caller knows that the whole batch lies
// before the split's last block (no bound checks).
template <bool kFull>
__device__ inline void r4l_compute(const R4LBatch& b, const char* const (&arow)[R4L_MSUB], int kb0,
                                   int kb_end, int live, r4l_part_t (&part)[R4_NPW][R4L_MSUB][4],
                                   float (&acc)[R4_NPW][R4L_MSUB][4]) {
#pragma unroll
  for (int u = 0; u < R4_ST; ++u) {
    const int kb = kb0 + u;
    if (kFull || kb < kb_end) {  // uniform
#if R4L_JIT_ACT
      u32x4 ja[R4L_MSUB][R4L_AV];
#pragma unroll
      for (int j = 0; j < R4L_MSUB; ++j)
        if (j < live) {
#pragma unroll
          for (int v = 0; v < R4L_AV; ++v)
            ja[j][v] = r4l_ld_a16(arow[j] + (i64)kb * R4L_BPB + 16 * v);
        }
#define R4L_ACT(u, j, v) ja[j][v]
#else
      (void)arow;
#define R4L_ACT(u, j, v) b.a[u][j][v]
#endif
#if R4L_LESION & 2
      {
        u32 x = 0u;
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
          x ^= b.w[u][p].x ^ b.w[u][p].y ^ b.w[u][p].z ^ b.w[u][p].w ^ b.s[u][p][0] ^
               (R4_ACT_KIND == 4 ? 0u : b.s[u][p][1]);
#pragma unroll
        for (int j = 0; j < R4L_MSUB; ++j)
          if (j < live) {
#pragma unroll
            for (int v = 0; v < R4L_AV; ++v)
              x ^=
                  R4L_ACT(u, j, v).x ^ R4L_ACT(u, j, v).y ^ R4L_ACT(u, j, v).z ^ R4L_ACT(u, j, v).w;
          }
        acc[0][0][0] += __uint_as_float(x & 0x007FFFFFu);
      }
#else
#pragma unroll
      for (int p = 0; p < R4_NPW; ++p) {
#if R4_ACT_KIND == 2 || R4_ACT_KIND == 3
        u32 a0[4], a1[4];
#if R4_ACT_KIND == 2
        r4nv::dequant_s8(b.w[u][p].x, b.w[u][p].y, a0);  // k32 step 0
        r4nv::dequant_s8(b.w[u][p].z, b.w[u][p].w, a1);  // k32 step 1
#else
        r4nv::dequant_e4m3_int4(b.w[u][p].x, b.w[u][p].y, a0);
        r4nv::dequant_e4m3_int4(b.w[u][p].z, b.w[u][p].w, a1);
#endif
#pragma unroll
        for (int j = 0; j < R4L_MSUB; ++j)
          if (j < live) {
#if R4_ACT_KIND == 2
            r4nv::mma_s8(part[p][j], a0, R4L_ACT(u, j, 0).x, R4L_ACT(u, j, 0).y);
            r4nv::mma_s8(part[p][j], a1, R4L_ACT(u, j, 0).z, R4L_ACT(u, j, 0).w);
#else
            r4nv::mma_e4m3(part[p][j], a0, b.a[u][j][0].x, b.a[u][j][0].y);
            r4nv::mma_e4m3(part[p][j], a1, b.a[u][j][0].z, b.a[u][j][0].w);
#endif
          }
#elif R4_ACT_KIND == 4 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        // sm_90: the f16 route (kernels/nv/mma_sm89.h). Per k32 step s': two m16n8k16 steps, h =
        // 0 / 1 over the lane's real k 32s' + 8t + 4h + 0..3 (dword 2s' + h of the weights, .x/.y
        // or .z/.w of the activations), into a zeroed partial promoted by 2^(e - 113).
        const u32 ew = b.s[u][p][0];
        const u32 w4[4] = {b.w[u][p].x, b.w[u][p].y, b.w[u][p].z, b.w[u][p].w};
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
                const u32 av = st ? (h ? b.a[u][j][0].w : b.a[u][j][0].z)
                                  : (h ? b.a[u][j][0].y : b.a[u][j][0].x);
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
        const u32 ew = b.s[u][p][0];
        const u32 w4[4] = {b.w[u][p].x, b.w[u][p].y, b.w[u][p].z, b.w[u][p].w};
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
              r4nv::mma_e4m3(d, af, st ? b.a[u][j][0].z : b.a[u][j][0].x,
                             st ? b.a[u][j][0].w : b.a[u][j][0].y);
              acc[p][j][0] = fmaf(d[0], f0, acc[p][j][0]);
              acc[p][j][1] = fmaf(d[1], f0, acc[p][j][1]);
              acc[p][j][2] = fmaf(d[2], f1, acc[p][j][2]);
              acc[p][j][3] = fmaf(d[3], f1, acc[p][j][3]);
            }
        }
#else
        const u32 w4[4] = {b.w[u][p].x, b.w[u][p].y, b.w[u][p].z, b.w[u][p].w};
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          u32 af[4];
          // R4L_WPERM: bytes 1 and 2 swapped, so af[0..3] hold the dword's nibbles (0, 2), (1, 3),
          // (4, 6), (5, 7): rows g, g+8 at real k (4s, 4s+1), then rows g, g+8 at (4s+2, 4s+3).
          const u32 wd = R4L_WPERM ? r4nv::prmt(w4[s], w4[s], 0x3120u) : w4[s];
#if R4_ACT_KIND == 1
          r4nv::dequant_bf16_codes(wd, af);
#else
          r4nv::dequant_f16_codes(wd, af);
#endif
#pragma unroll
          for (int j = 0; j < R4L_MSUB; ++j)
            if (j < live) {
              // The layout's k-permutation on the activations (quant/layout/sm80.h): dwords 2s and
              // 2s+1 of the lane's 16 k hold k 4s..4s+3; b0 = (4s, 4s+2), b1 = (4s+1, 4s+3).
              const u32x4& h = R4L_ACT(u, j, s >> 1);
              const u32 lo = (s & 1) ? h.z : h.x;
              const u32 hi = (s & 1) ? h.w : h.y;
              const u32 b0 = R4L_WPERM ? lo : r4nv::prmt(lo, hi, 0x5410u);
              const u32 b1 = R4L_WPERM ? hi : r4nv::prmt(lo, hi, 0x7632u);
#if R4_ACT_KIND == 1
              r4nv::mma_bf16(part[p][j], af, b0, b1);
#else
              r4nv::mma_f16(part[p][j], af, b0, b1);
#endif
            }
        }
#endif
      }
#endif  // R4L_LESION & 2
#undef R4L_ACT
      // The end of a group, or of the split (never inside a kFull batch).
      if (R4_ACT_KIND != 4 && ((kb & 1) || (!kFull && kb + 1 == kb_end))) {
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p) {
          const float w0 = r4_f16_to_f32(b.s[u][p][0]) * R4L_CODE_SCALE;
          const float w1 = r4_f16_to_f32(b.s[u][p][1]) * R4L_CODE_SCALE;
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
  }
}

// The main loop (after the prologue), as a template over the live sub-tile count: kLive = 0 reads
// it at run time (`live_rt`); otherwise it is a constant and the math's per-sub-tile checks fold
// away (R4L_STATIC_LIVE below).
template <int kLive>
__device__ inline void r4l_mainloop(R4LBatch& b0, R4LBatch& b1, const u32x4* const (&wp)[R4_NPW],
                                    const u32* const (&sp)[R4_NPW],
                                    const char* const (&arow)[R4L_MSUB], int live_rt, int kb_begin,
                                    int kb_end, int G, int g,
                                    r4l_part_t (&part)[R4_NPW][R4L_MSUB][4],
                                    float (&acc)[R4_NPW][R4L_MSUB][4]) {
  const int kb_last = kb_end - 1;
  // Ping-pong: the next batch's loads go out before this batch's math waits on its own (in the
  // SASS that wait covers both batches: see the top of the file). While both batches of an
  // iteration and the batch it loads for the next one lie wholly inside the split, the loads and
  // the math need no clamps or bound checks (R4L_FULL: every address is the batch's base plus an
  // immediate, and each block's math runs unconditionally); the last iterations run checked.
  const int live = kLive ? kLive : live_rt;  // a constant in the static instances
  int kb0 = kb_begin;
#if R4L_FULL
  for (; kb0 + 3 * R4_ST <= kb_end; kb0 += 2 * R4_ST) {
    r4l_load_batch<true>(b1, wp, sp, arow, live, kb0 + R4_ST, kb_last, G, g);
    r4l_compute<true>(b0, arow, kb0, kb_end, live, part, acc);
    r4l_load_batch<true>(b0, wp, sp, arow, live, kb0 + 2 * R4_ST, kb_last, G, g);
    r4l_compute<true>(b1, arow, kb0 + R4_ST, kb_end, live, part, acc);
  }
#endif
  for (; kb0 < kb_end; kb0 += 2 * R4_ST) {
    const int k1 = kb0 + R4_ST;
    if (k1 < kb_end) r4l_load_batch<false>(b1, wp, sp, arow, live, k1, kb_last, G, g);
    r4l_compute<false>(b0, arow, kb0, kb_end, live, part, acc);
    if (k1 >= kb_end) break;
    const int k2 = k1 + R4_ST;
    if (k2 < kb_end) r4l_load_batch<false>(b0, wp, sp, arow, live, k2, kb_last, G, g);
    r4l_compute<false>(b1, arow, k1, kb_end, live, part, acc);
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
  const int kb_begin = r4_split_begin(blockIdx.y, KB);
  const int kb_end = r4_split_begin(blockIdx.y + 1, KB);
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
  const char* arow[R4L_MSUB];
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j) {
    const int row = min(m_base + 8 * j + g, M - 1);
    arow[j] = static_cast<const char*>(act) + (i64)row * K * (R4L_A8 ? 1 : 2) +
              (R4_ACT_KIND == 4 ? 8
               : R4L_A8         ? 16
                                : 32) *
                  t;
  }

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
  // for the previous kernel (it may still be writing the activations), then its activations.
  const int kb_last = kb_end - 1;
  R4LBatch b0, b1;
  r4l_load_weights<false>(b0, wp, sp, kb_begin, kb_last, G, g);
#if R4L_L2PF > 0
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    // A tile's 64-K blocks are 512 contiguous bytes each (quant/layout/sm80.h); wp[p] - lane is
    // the tile's first.
    const char* tile = reinterpret_cast<const char*>(wp[p] - lane);
    const i64 from = (i64)(kb_begin + R4_ST) * 512, to = (i64)kb_end * 512;
#pragma unroll
    for (int off = 128 * lane; off < R4L_L2PF; off += 32 * 128)
      if (from + off < to) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(tile + from + off));
  }
#endif
#if R4L_WAIT_FENCE
  {
    extern __shared__ __align__(16) char r4l_fence_smem[];  // the launch's dynamic shared memory
    if (M < 0) {  // never: keeps the batch's loads before the wait (see R4L_WAIT_FENCE)
      u32 x = 0u;
#pragma unroll
      for (int u = 0; u < R4_ST; ++u)
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
          x ^= b0.w[u][p].x ^ b0.w[u][p].y ^ b0.w[u][p].z ^ b0.w[u][p].w ^ b0.s[u][p][0] ^
               (R4_ACT_KIND == 4 ? 0u : b0.s[u][p][1]);
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(r4_saddr_of(r4l_fence_smem)), "r"(x)
                   : "memory");
    }
  }
#endif
  if (!R4_TEST_PDL_LATE_WAIT) r4_pdl_wait();
  r4l_load_acts<false>(b0, arow, live, kb_begin, kb_last);
  if (R4_TEST_PDL_LATE_WAIT) r4_pdl_wait();

#if R4L_STATIC_LIVE
  // One instance per live count where it is cheap (MB 1: 1 or 2 sub-tiles), else the full one.
  if (live == R4L_MSUB)
    r4l_mainloop<R4L_MSUB>(b0, b1, wp, sp, arow, live, kb_begin, kb_end, G, g, part, acc);
  else if (R4L_MSUB == 2)
    r4l_mainloop<1>(b0, b1, wp, sp, arow, live, kb_begin, kb_end, G, g, part, acc);
  else
    r4l_mainloop<0>(b0, b1, wp, sp, arow, live, kb_begin, kb_end, G, g, part, acc);
#else
  r4l_mainloop<0>(b0, b1, wp, sp, arow, live, kb_begin, kb_end, G, g, part, acc);
#endif
  if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();

  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M,
                N};
  // The cluster split-K tile (kernels/splitk.h): the launch's dynamic shared memory, given only
  // to cluster launches (kernels/config.hpp splitk_cluster_tile_bytes).
  extern __shared__ __align__(16) char r4l_smem[];
  const r4_saddr tile = r4_saddr_of(r4l_smem);
  const bool cluster = r4_splitk_cluster();
#if R4L_A8 && R4L_SA_EARLY
  float sav[R4L_MSUB][2];  // this thread's row scales, all loads in flight at once
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int m = m_base + 8 * j + 2 * t + h;
      sav[j][h] = m < M ? r4l_ld_sa(sa + m) : 0.0f;
    }
#endif
#pragma unroll
  for (int j = 0; j < R4L_MSUB; ++j) {
    const int m = m_base + 8 * j + 2 * t;
#if R4L_A8 && R4L_SA_EARLY
    const float sa0 = sav[j][0], sa1 = sav[j][1];
#elif R4L_A8
    const float sa0 = m < M ? r4l_ld_sa(sa + m) : 0.0f;
    const float sa1 = m + 1 < M ? r4l_ld_sa(sa + m + 1) : 0.0f;
#else
    const float sa0 = 1.0f, sa1 = 1.0f;
#endif
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      if (tile_base + p < ntiles) {
        const int n0 = (tile_base + p) * 16 + g;
        if (cluster) {
          const int r = 8 * j + 2 * t, col = (warp * R4_NPW + p) * 16 + g;
          r4_splitk_tile_put(tile, r, col, acc[p][j][0] * sa0);
          r4_splitk_tile_put(tile, r + 1, col, acc[p][j][1] * sa1);
          r4_splitk_tile_put(tile, r, col + 8, acc[p][j][2] * sa0);
          r4_splitk_tile_put(tile, r + 1, col + 8, acc[p][j][3] * sa1);
        } else {
          o.put(m, n0, acc[p][j][0] * sa0);
          o.put(m + 1, n0, acc[p][j][1] * sa1);
          o.put(m, n0 + 8, acc[p][j][2] * sa0);
          o.put(m + 1, n0 + 8, acc[p][j][3] * sa1);
        }
      }
    }
  }
  if (!(R4L_LESION & 1))
    r4_splitk_finish(o, ws, (int)blockIdx.x * R4_WV * R4_NPW * 16, R4_WV * R4_NPW * 16, m_base,
                     R4_MB * 16, tile);
}

#endif  // R4_KERNELS_NV_GEMM_W4_LDG_H
