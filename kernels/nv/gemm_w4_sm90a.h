// The sm90a generation of gemm_w4a16_nt and gemm_w4a8_nt (R4_GEN=1): the same packed weight (the
// sm80 layout, quant/layout/sm80.h) and the same results, built on Hopper's bulk copies, mbarrier
// rings, warp specialisation and wgmma. Included by kernels/gemm_w4a16_nt.cu (R4_ACT_KIND 0: f16
// activations, 1: bf16), kernels/gemm_w4a8_nt.cu (R4_ACT_KIND 2: int8 from quant_act) and
// kernels/gemm_w4a8fp8_nt.cu (R4_ACT_KIND 3: OCP e4m3 from quant_act_fp8; wgmma .e4m3 with the
// weight bytes code * 2^-9, kernels/nv/cvt_fp8.h, f32 partials per group as for 16-bit) and
// kernels/gemm_mxfp4a8fp8_nt.cu (R4_ACT_KIND 4: e4m3 activations x MXFP4 weights in the mx_sm89
// layout, whose bytes per (16-row tile, 64 K) and exponent bytes per (tile, 128 K) lie where the
// sm80 layout's codes and scale dwords do, so the producer is the same; the weight bytes are
// e2m1 value * 2^-6, and each k32 step, one 32-K exponent block, has its own f32 partial,
// promoted by 2^(e - 127 + 6) per row: R4G_PSTEP).
//
// Swap AB. The weights are wgmma's 64-row A operand, dequantised in registers (the RS form): warp
// w of a consumer warpgroup owns the sm80 16-row tile 4T + w of the 64-row tile T and its lane
// builds exactly the mma.sync A fragment the first generation builds (kernels/nv/mma_sm80.h).
// The activations are the B operand, N = 16*MB columns, in shared memory.
//
// Warp specialisation. CW = WV/4 consumer warpgroups, then one producer warpgroup:
//   - the producer's four warp leaders stream the weight and scale bytes of each stage with 1-D
//     bulk copies (cp.async.bulk: the sm80 layout keeps one 16-row tile's 128 K (one group) in
//     1 KiB contiguous, its 16 scale dwords in 64 B; ST groups' scales per copy with R4G_SCHUNK,
//     off) into a ring of ST stages completed by transaction counts on an mbarrier per stage
//     ("full"); the stage's activations (16*MB rows x 128 K) land at the k-permutation the
//     weight fragments carry (kernels/nv/wgmma_layout_sm90a.h) by one of two paths (R4G_BULKA /
//     registers, r4g_produce): the leaders' bulk copies from quant_act's sm90a order (one-byte
//     kinds; the leaders then arrive on "full"), or all 128 producer threads permuting 16-bit
//     activations from registers (each thread then arrives);
//   - each consumer warpgroup waits for a stage, dequantises its NPW 64-row tiles (one 16-byte
//     shared load per lane per 64 K per tile, as the first generation), issues the stage's wgmmas
//     (8 k16 steps for 16-bit activations, 4 k32 steps for int8), waits for them, fences the
//     async proxy and releases the stage ("empty": one arrival per consumer warp).
// Group scales are exact: the A registers hold the codes themselves (exact in f16, bf16 and int8,
// kernels/nv/mma_sm80.h dequant_*_codes), each 128-K group (= one stage) accumulates in its own
// partial (f32 for 16-bit activations, int32 for int8) and is promoted once with its f32 scale
// (QServe, DeepGEMM); the int8 path's activation row scale is applied at the end.
//
// Work split. Grid x = the 64*CW*NPW-row blocks of N, y = SK splits of the K groups, z = the
// 16*MB-row blocks of M; split-K is reduced by kernels/splitk.h (deterministic). The ring uses up
// to the 227 KiB opt-in (__launch_bounds__(threads, 1)); the launchers raise the dynamic shared
// memory so that an SM holds no more CTAs than one wave of the grid needs (kernels/config.hpp
// sm90a_wave_shared_bytes: under PDL a GEMM whose small rings let two CTAs share an SM ran slower).
//
// Programmatic dependent launch (kernels/prelude.h): every thread calls launch_dependents at
// entry; the producer issues the bulk copies of the first min(ST, stages) stages, THEN waits for
// the previous kernel, then reads activations. The consumers only read what the producer staged,
// and wait again (a no-op by then) before the epilogue writes outputs or touches the workspace.
//
// Stream-K (R4_SK = kernels/config.hpp kSm90aStreamK, > 16; R4G_SKS): a 1-D grid of C blocks (the
// launcher: min(R4_SK, units)) over the (N tile, 128-K group) units of every N tile, tile major, in
// equal contiguous ranges (Osama et al., "Stream-K", PPoPP 2023), so that one wave covers the GPU
// whatever the tile count: gate_up's 68 tiles of 256 rows left 64 of 132 SMs idle at SK 1, and
// SK 2's 136 blocks took a second wave (docs/PERF.md, session 25). One M tile (is_valid: MB =
// ceil(M / 16)). A block's range falls into segments, one per tile it touches; at a segment's end
// the consumers store a whole tile, or write their accumulators to the block's workspace slot in
// fragment order (r4g_sk_segment), and the tile's last contributor to arrive adds the slots in
// order 0..nc-1 (its own from its registers: deterministic) and stores the tile.
//
// Config (compile-time, kernels/config.hpp is_valid): R4_WV consumer warps (4, 8), R4_SK split-K
// (0: the launch's gridDim.y, kernels/splitk.h), R4_MB (wgmma N = 16*MB: 1, 2, 3, 4), R4_NPW 64-row
// tiles per consumer warpgroup (1, 2), R4_NT L2 evict-first weight copies, R4_ST ring stages.
#ifndef R4_KERNELS_NV_GEMM_W4_SM90A_H
#define R4_KERNELS_NV_GEMM_W4_SM90A_H

#include "kernels/nv/epilogue_pack.h"
#include "kernels/nv/mma_sm80.h"
#include "kernels/nv/wgmma_layout_sm90a.h"
#include "kernels/nv/wgmma_sm90a.h"
#if R4_ACT_KIND >= 3
#include "kernels/nv/mma_sm89.h"
#endif
#include "kernels/splitk.h"
#include "quant/layout/sm80.h"

#ifndef R4_ST
#error "R4_ST (ring stages) must be defined for the sm90a generation"
#endif
#ifndef R4_ACT_KIND
#error "R4_ACT_KIND (0 f16, 1 bf16, 2 int8, 3 e4m3, 4 e4m3 x MXFP4) must be defined"
#endif
#if R4_WV != 4 && R4_WV != 8
#error "the sm90a generation has 1 or 2 consumer warpgroups (R4_WV 4 or 8)"
#endif

#define R4G_CW (R4_WV / 4)                         // consumer warpgroups
#define R4G_THREADS (128 * (R4G_CW + 1))           // + the producer warpgroup
#define R4G_NR (16 * R4_MB)                        // activation rows per CTA: the wgmma N
#define R4G_EB (R4_ACT_KIND >= 2 ? 1 : 2)          // activation bytes
#define R4G_TPC (R4G_CW * R4_NPW)                  // 64-row weight tiles per CTA
#define R4G_SLOTS (4 * R4G_TPC)                    // 16-row sm80 tiles per CTA
#define R4G_WBYTES 1024                            // one sm80 tile's 128 K: 2 x 512 B
#define R4G_SBYTES 64                              // its 16 scale dwords of the group
#define R4G_ABYTES (R4G_NR * 128 * R4G_EB)         // the stage's activations
// Scale chunks (session 26). A 16-row tile's scale dwords of consecutive groups are contiguous in
// the sm80 layout, so the leader copies R4G_SC groups' scales of a slot at once, into a ring of
// R4G_SR entries per slot beside the stages, instead of one 64-byte copy per slot and stage: the
// ring's rate follows its number of bulk copies (session 25: 22.74 us for gate_up's bare ring with
// the scale copies, 18.16 without), and this takes ST - 1 of every ST of them away (not under
// stream-K: r4g_scale_groups). The copy rides on the transaction count of its first stage; the
// consumers read later stages' entries after waiting for that stage (in order). An entry of
// stage j is overwritten by the copy issued with stage a >= j + R4G_SR - R4G_SC + 1 (a copy never
// crosses a multiple of R4G_SC; R4G_SR is 2 R4G_SC), which the producer issues only after stage
// a - ST's release, hence after stage j's as long as R4G_SC >= ST - 1 (and no copy of the first
// ST stages, issued before any release, overwrites).
// For the one-byte kinds outside stream-K (kernels/config.hpp sm90a_scale_chunks mirrors it).
// H200, r4kern --one as a race times it, three rounds each (spread <= 0.2 us; docs/PERF.md session
// 26): gate_up's bare ring (8, 1, 4, 2, 1, 4) 22.67 -> 19.73 us; w4a8 gate_up M = 1 (4, 2, 1, 2,
// 0, 4) 20.27 -> 19.69, M = 64 (8, 1, 4, 2, 1, 4) 38.35 -> 37.70; w4a8fp8 gate_up M = 16 (8, 4, 1,
// 1, 1, 4) 27.11 -> 27.01. Off for stream-K, whose direct int8 winners lost 2% (gate_up M = 64
// 36.61 -> 37.38, down 25.19 -> 25.75), and for the 16-bit kinds, whose register-staged producer
// and consumer went past 85 registers at ST 6 and lost their second block per SM ((8, 4, 2, 1, 1,
// 6) o M = 32 11.21 -> 13.88 us). On by default since session 31, whose sweep with them verified
// every config (0 failed of 47,604; session 28's stop was a shared-memory opt-in in the tuner's
// backend, session 30). The build decides: `-DR4_SM90A_SCALE_CHUNKS=ON` (CMakeLists.txt, the
// default) sets kSm90aScaleChunks in kernels/config.hpp, which
// sizes the shared memory, and makes kernels/family.cpp compile_request and r4d's TUs define
// R4G_SCHUNK_ON=1 here; a -D R4G_SCHUNK=0 is then the A/B's old path (it needs less shared memory);
// -D R4G_SCHUNK=1 in a build without them would overrun the block's shared memory.
#ifndef R4G_SCHUNK_ON
#define R4G_SCHUNK_ON 0
#endif
// Balanced grid (R4_SK 255 = kernels/config.hpp kSm90aBalanced, session 38): whole-K blocks for
// as many N tiles as fill whole waves of R4G_BAL_SMS SMs, then the remaining tiles split-K, each
// over as many blocks as the SMs left (r4g_bal). Why: gate_up's 272 64-row tiles left 8 SMs a third
// block, and with the math an SM's consumers set its rate, so those 8 finished last (session 37,
// H100: MXFP4 (4, 1, 1, 1, 1, 4) M = 1 24.12 us on 17408 x 5120, 19.01 on 16896 x 5120). Stream-K
// balanced the same grid and lost: its ranges end inside tiles, and those segment ends stalled the
// stream (docs/PERF.md "Session 37"); here a block ends only at its tile's end.
#define R4G_BAL (R4_SK == 255)
#define R4G_BAL_SMS 132                   // kernels/config.hpp kSm90aBalancedSms
#define R4G_SKS (R4_SK > 16 && !R4G_BAL)  // stream-K
#ifndef R4G_SCHUNK
#define R4G_SCHUNK (R4G_SCHUNK_ON && R4G_EB == 1 && !R4G_SKS)
#endif
#if R4G_SCHUNK
#define R4G_SC R4_ST
#define R4G_SR (2 * R4_ST)
#define R4G_STAGE (R4G_SLOTS * R4G_WBYTES + R4G_ABYTES)
#define R4G_SRING (R4G_SLOTS * R4G_SR * R4G_SBYTES)
#else
#define R4G_SC 1
#define R4G_SR 1
#define R4G_STAGE (R4G_SLOTS * (R4G_WBYTES + R4G_SBYTES) + R4G_ABYTES)
#define R4G_SRING 0
#endif
#define R4G_AOFF (R4G_STAGE - R4G_ABYTES)  // the activations' offset in a stage
#define R4G_RING_OFFSET 1024                       // the ring after the barriers
#define R4G_STEPS (R4G_EB == 2 ? 8 : 4)            // wgmma k-steps per stage
// A partial per k-step (MXFP4: a k32 step is one 32-K block, each with its own exponent per row)
// or one per stage (the others: a stage is one 128-K group with one scale per row).
#define R4G_PSTEP (R4_ACT_KIND == 4)
#ifndef R4_BROKEN_SCALE
#define R4_BROKEN_SCALE 0
#endif
// MXFP4 with two consumer warpgroups and four accumulator tiles (MB x NPW = 4): the stage's
// wgmmas in two groups of one 64-K block each, each waited for and promoted before the next, so
// that two partials per accumulator suffice (four spill there: 168 registers of 384 threads).
#ifndef R4G_PHALF
#define R4G_PHALF (R4G_PSTEP && R4_WV == 8 && R4_MB * R4_NPW >= 4)
#endif
#define R4G_PBLK (R4G_PHALF ? 1 : 2)  // 64-K blocks per wgmma group (one wait, one promotion)
#define R4G_NPART (R4G_PSTEP ? 2 * R4G_PBLK : 1)
#if R4G_PHALF && R4G_DQA
#error "R4G_DQA (dequantise ahead) is not written for R4G_PHALF"
#endif
// EXPERIMENT ONLY (r4kern --one --define): R4G_LESION bit 1 skips the producer's activation
// staging, bit 2 the consumers' dequantisation and MMAs (3: both, the bare weight ring), bit 4 the
// epilogue (output or partial stores and the split-K reduction: the stores stay in the code behind
// a runtime `M < 0`, so the math that feeds them is not eliminated), bit 8 everything after the
// barriers' initialisation (a block that is launched with the config's grid and shared memory, then
// exits: what the launch itself costs). Bits 4 and 8 are for the "fixed part" of session 24 (a
// 64 x 256 tile spends 6-11 us that do not scale with K: docs/PERF.md). The results are wrong, the
// time says what each stage costs (METHOD.md: time variants that leave one stage out; r4kern times
// a lesion unchecked and labels it so). Finer lesions of the consumers' math (session 36): bit 16
// leaves out the wgmmas and their wait (the dequantised registers are pinned, the promotion still
// runs on the partials), bit 32 the dequantisation (the loaded weight words go to the wgmmas as
// they are), bit 64 the promotion. Bit 128 (int4 x e4m3 only, session 42) converts the codes to
// biased bytes in 3 instructions per 8 weights (cvt_fp8.h int4x8_to_e4m3_biased) instead of 9 and
// adds no zero point: the time of a conversion that cheap, whose zero point would come from
// elsewhere (the activations' group sums).
#ifndef R4G_LESION
#define R4G_LESION 0
#endif
#if (R4G_LESION & 4) && R4G_SKS
#error "R4G_LESION bit 4 is for split-K / single-split configs (stream-K ends segments in its loop)"
#endif
// The SK 1 epilogue's bf16 outputs packed across lanes before the stores (1: two shuffles per
// 8-row step give each thread four consecutive outputs of one row, one 8-byte store instead of
// four 2-byte ones; a warp's store then fills eight 32-byte sectors instead of half-filling 16) or
// stored as the accumulators hold them (0, as before). Needs C 8-byte aligned (checked at run time;
// r4d accepts 2-byte alignment, which takes the old stores). Session 31: what the row scales'
// preload (r4g_row_scales) left of the epilogue, ~2 us per 64 x 256 tile, is its stores. Default 1
// since session 31's A/B (H100, 2 x 2 alternating runs, docs/PERF.md "Session 31"): MB 4 and 3
// 0.25-1.07 us less (gate_up M = 64 -2.7%, o_proj -3 to -4%), MB 1 within +-0.2 us; 0 for an A/B.
#ifndef R4G_EPI_PACK
#define R4G_EPI_PACK 1
#endif
// The stream-K segment end's tile stores packed the same way (1) or not (0, as before; the stream-K
// winners, e.g. down and gate_up at M = 48 / 64, store whole 64 x 256 tiles as the SK 1 epilogue
// does). Default 1 since session 32's A/B (H100, 2 x 2 alternating runs, docs/PERF.md "Session
// 32"): w4a8 gate_up M = 64 0.7-2.2 us less, w4a8fp8 gate_up M = 48 0.5 us less, down within
// noise; on the sweep's winners the 34 stream-K bands median 0.9955. 0 for an A/B only.
#ifndef R4G_EPI_PACK_SK
#define R4G_EPI_PACK_SK 1
#endif
// Dequantise ahead in the consumers (experiment, default 0; r4kern --define for an A/B): the
// next stage's A fragments are built while this stage's wgmmas run. Session 33's lesions put the
// consumers' math at 3.2 us of o_proj's (4, 1, 2, 2, 1, 8) M = 64 once the staging is gone (lesion
// 5, 8.12 us, against 7, 4.94): one consumer warpgroup per SM serialises wait, dequantise, wgmma,
// wait, promote for every group.
#ifndef R4G_DQA
#define R4G_DQA 0
#endif
// The stage's scale words loaded and decoded to f32 right after its dequantisation, before its
// wgmmas (1), instead of after the wait that retires them (0, as before). Session 36's lesions
// (H100, GEMM alone): without the promotion MXFP4 gate_up (4, 1, 1, 1, 1, 4) M = 1 ran 24.7 ->
// 17.3 us and w4a8 M = 16 20.8 -> 17.9, while without the wgmmas (promotion kept) 17.5 and 17.9:
// the promotion costs behind the wait, where its scale loads (shared memory, after the "memory"
// fences) and conversions start a serial chain. A/B (calls 7-8, two rounds each, GEMM alone):
// 0.5-5.6% less on 13 of 20 one-byte configs (w4a8fp8 (8, 1, 2, 1, 1, 8) o_proj M = 64 9.97 ->
// 9.42 us, MXFP4 (4, 1, 4, 1, 1, 4) 8.60 -> 8.33), six within +-0.6%, slower only MXFP4's two-
// warpgroup halves (R4G_PHALF: (8, 132, 4, 1, 1, 4) gate_up M = 64 35.3 -> 36.4), which keep 0,
// as do two warpgroups of 8 accumulator tiles (at the 168-register cap (8, 1, 4, 2, 1, 4) spilled
// 8 B with it, nvcc 13.0). Not measured for the 16-bit kinds (0), nor written for R4G_DQA.
#ifndef R4G_SC_EARLY
#define R4G_SC_EARLY (R4G_EB == 1 && !R4G_PHALF && !R4G_DQA && !(R4_WV == 8 && R4_MB * R4_NPW >= 8))
#endif
#if R4G_SC_EARLY && R4G_DQA
#error "R4G_SC_EARLY is not written for R4G_DQA (its loop does not load the scales early)"
#endif
#ifndef R4G_WARF
#define R4G_WARF 1  // the consumers' proxy fence before each release (below); 0 for an A/B only
#endif

// The stage's activations, 16-byte chunks: a row of 128 K holds R4G_CHUNKS of them.
#define R4G_CHUNKS (128 * R4G_EB / 16)
#define R4G_PER ((R4G_NR * R4G_CHUNKS) / 128)  // chunks per producer thread per stage (>= 1)

// How activations reach the B tile: two producer paths, chosen by the activation kind
// (kernels/config.hpp act_order and sm90a_shared_bytes mirror the choice).
//   R4G_BULKA (the one-byte kinds, int8 and e4m3; session 33): quant_act / quant_act_fp8 write the
//     sm90a order (ActOrder::sm90a, kernels/nv/wgmma_layout_sm90a.h act_offset_8), chunk-major
//     across rows, in which a stage's B tile is 8 contiguous runs of 16 bytes x its live rows
//     (one run of the whole tile when the tile is the whole matrix). The producer's four warp
//     leaders copy them with 1-D bulk copies beside the weights', on the same transaction count:
//     no producer thread touches an activation, and the "full" barrier counts the 4 leaders.
//     It replaces two thread-driven paths: 16-byte cp.async into place (int8, MB 4, WV 8) and a
//     staging ring permuted shared -> shared (the others). Session 33's lesions (H100, o_proj
//     (4, 1, 2, 2, 1, 8) M = 64, no math and no epilogue): the staging took 6.99 - 4.94 = 2.05 us
//     of a 9.96 us GEMM, on gate_up's MB 4 direct path 28.06 - 18.07 = 10 us.
//   16-bit (f16, bf16, the caller's natural-order tensor): register buffers D stages ahead, stored
//     permuted (the 16-bit permutation moves 2-byte halves). A staging ring cost w4a16 its second
//     block per SM at 6 stages: (8, 2, 2, 1, 1, 6) gate_up M = 64 75.1 us in registers, 98.9 staged.
#define R4G_BULKA (R4G_EB == 1)
// The weight copies by pointers made once (session 25, H200, then the int8 MB 4 path: gate_up
// (8, 1, 4, 2, 1, 4) M = 64 38.60 -> 37.59 us, down (8, 4, 4, 2, 0, 4) 26.49 -> 25.67: the
// producer's per-stage work is on the critical path). Not the 16-bit producer (w4a16
// (8, 2, 2, 1, 1, 6) went from 80 to 93 registers, lost its second block per SM and ran 75 -> 98 us).
#define R4G_PFAST (R4G_BULKA && !R4G_SKS)

__device__ inline void r4g_st32(r4_saddr a, u32 v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(a), "r"(v) : "memory");
}

// Where slot `slot`'s scales of a stage lie: in the stage (R4G_SCHUNK 0), or at entry
// e = it % R4G_SR of the scale ring. The consumers carry e from stage to stage (computing it from
// `it` there did not keep the 16-bit consumer at ST 6 from 93 registers either: docs/PERF.md).
__device__ inline r4_saddr r4g_scale_at(r4_saddr ring, r4_saddr stage, int slot, int e) {
#if R4G_SCHUNK
  (void)stage;
  return ring + R4_ST * R4G_STAGE + (slot * R4G_SR + e) * R4G_SBYTES;
#else
  (void)ring;
  (void)e;
  return stage + R4G_SLOTS * R4G_WBYTES + slot * R4G_SBYTES;
#endif
}
// The groups whose scales the leader copies with stage `it` of `iters`: a chunk at every
// multiple of R4G_SC, cut at the block's last group; 0: none. Not under stream-K, whose ranges
// cross N tiles (the next tile's scales are elsewhere; 27159bd cut the chunks there and measured
// stream-K slower with them: docs/PERF.md "Session 26").
#if R4G_SCHUNK && R4G_SKS
#error "R4G_SCHUNK is for split-K / single-split configs, not stream-K"
#endif
__device__ inline int r4g_scale_groups(int it, int iters) {
#if R4G_SCHUNK
  return it % R4G_SC == 0 ? min(R4G_SC, iters - it) : 0;
#else
  (void)it;
  (void)iters;
  return 1;
#endif
}

#if !R4G_BULKA
// Producer thread pt takes chunks pt, pt + 128, ... (a warp reads consecutive chunks of a row:
// coalesced).
__device__ inline void r4g_load_act(u32x4 (&v)[R4G_PER], const char* __restrict__ src,
                                    int rows_live, i64 stride, int pt) {
#pragma unroll
  for (int i = 0; i < R4G_PER; ++i) {
    const int c = pt + 128 * i, n = c / R4G_CHUNKS, q = c % R4G_CHUNKS;
    if (n < rows_live) v[i] = r4_ld_cg16(src + (i64)n * stride + 16 * q);
  }
}

// Writes the loaded chunks at the MMA-k positions of kernels/nv/wgmma_layout_sm90a.h. Rows past M
// are left as they are: they only feed output columns that are never stored.
__device__ inline void r4g_store_act(const u32x4 (&v)[R4G_PER], r4_saddr a_stage, int rows_live,
                                     int pt) {
#pragma unroll
  for (int i = 0; i < R4G_PER; ++i) {
    const int c = pt + 128 * i, n = c / R4G_CHUNKS, q = c % R4G_CHUNKS;
    if (n >= rows_live) continue;
#if R4G_EB == 1
    // 16 int8 / e4m3 = real k 16q .. 16q+15: four 4-byte groups, each whole at one MMA-k position.
    const int k0 = 16 * q;
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_8(n, k0, R4G_NR), v[i].x);
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_8(n, k0 + 4, R4G_NR), v[i].y);
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_8(n, k0 + 8, R4G_NR), v[i].z);
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_8(n, k0 + 12, R4G_NR), v[i].w);
#else
    // 8 16-bit values = real k 8q .. 8q+7 = (k16 steps s0, s0+1) x j = 0..3; the pairs (j0, j2)
    // and (j1, j3) sit at adjacent MMA-k positions (the first generation's prmt 0x5410 / 0x7632).
    const int k0 = 8 * q;
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_16(n, k0, R4G_NR), r4nv::prmt(v[i].x, v[i].y, 0x5410u));
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_16(n, k0 + 1, R4G_NR), r4nv::prmt(v[i].x, v[i].y, 0x7632u));
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_16(n, k0 + 4, R4G_NR), r4nv::prmt(v[i].z, v[i].w, 0x5410u));
    r4g_st32(a_stage + r4::wgmma_layout::b_offset_16(n, k0 + 5, R4G_NR), r4nv::prmt(v[i].z, v[i].w, 0x7632u));
#endif
  }
}
#endif

#if !R4G_BULKA
// Register buffers: the loads come from L2 (the previous kernel's output), so a producer that
// loaded one stage ahead delivered about one stage per L2 round trip (gate_up w4a8 M = 1 at
// 19.3 us, 1.5x its read floor, H200 2026-11-30). D * R4G_PER 16-byte chunks per thread stay
// within 8 (32 registers): deeper buffers at NR = 64 spilled (ptxas 13.0).
#ifndef R4G_DEPTH
#define R4G_DEPTH (R4G_PER <= 2 ? 4 : 2)
#endif
#endif

// Producer: streams weights (bulk copies) and stages activations; one ring iteration per group.
__device__ inline void r4g_produce(r4_saddr ring, r4_saddr full, r4_saddr empty,
                                   const u32x4* __restrict__ wq, const u32* __restrict__ wsz,
                                   const char* __restrict__ act, int rows_live, i64 act_stride,
                                   int tile16_first, int ntiles16, int KB, int G, int g_begin,
                                   int iters) {
  const int pt = (int)threadIdx.x - 128 * R4G_CW;  // 0..127
  const int pw = pt >> 5, lane = pt & 31;
  // Warp pw's leader copies slots [pw * TPC, (pw + 1) * TPC) of every stage.
#if R4G_PFAST
  // Slot i's weight and scale bytes of group g_begin, advanced one group (1 KiB, 64 B) per stage.
  const u32x4* wsrc[R4G_TPC];
  const u32* ssrc[R4G_TPC];
#pragma unroll
  for (int i = 0; i < R4G_TPC; ++i) {
    const int t16 = min(tile16_first + pw * R4G_TPC + i, ntiles16 - 1);  // past N: not stored
    wsrc[i] = wq + ((i64)t16 * KB + 2 * g_begin) * 32;
    ssrc[i] = wsz + ((i64)t16 * G + g_begin) * 16;
  }
  const u64 pol = R4_NT != 0 && lane == 0 ? r4wg::evict_first_policy() : 0;
  const auto issue = [&](int it) {
    const int s = it % R4_ST;
    const r4_saddr stage = ring + s * R4G_STAGE;
    const int sn = r4g_scale_groups(it, iters);
    r4wg::mbar_expect_tx(full + 8 * s, R4G_TPC * (R4G_WBYTES + sn * R4G_SBYTES));
#pragma unroll
    for (int i = 0; i < R4G_TPC; ++i) {
      const int slot = pw * R4G_TPC + i;
      r4wg::bulk_copy_pol(stage + slot * R4G_WBYTES, wsrc[i] + it * 64, R4G_WBYTES, full + 8 * s,
                          R4_NT != 0, pol);
      if (sn > 0)
        r4wg::bulk_copy_pol(r4g_scale_at(ring, stage, slot, it % R4G_SR), ssrc[i] + it * 16,
                            sn * R4G_SBYTES, full + 8 * s, R4_NT != 0, pol);
    }
  };
#else
#if R4G_SKS
  // Stream-K: g_begin is the block's first unit (unit u: group u % G of N tile u / G); issue() is
  // called for it = 0, 1, 2, ... in order, so it counts units rather than divide (a division per
  // stage cost a 40-stage block 3-4 us: the producer's per-stage work is on the critical path).
  int itq = g_begin / G, ig = g_begin - itq * G;
#endif
  const auto issue = [&](int it) {
    const int s = it % R4_ST;
    const r4_saddr stage = ring + s * R4G_STAGE;
#if R4G_SKS
    const int grp = ig, tfirst = itq * R4G_SLOTS;
    if (++ig == G) {
      ig = 0;
      ++itq;
    }
#else
    const int grp = g_begin + it, tfirst = tile16_first;
#endif
    const int sn = r4g_scale_groups(it, iters);
    r4wg::mbar_expect_tx(full + 8 * s, R4G_TPC * (R4G_WBYTES + sn * R4G_SBYTES));
#pragma unroll
    for (int i = 0; i < R4G_TPC; ++i) {
      const int slot = pw * R4G_TPC + i;
      const int t16 = min(tfirst + slot, ntiles16 - 1);  // past N: a valid tile, not stored
      r4wg::bulk_copy(stage + slot * R4G_WBYTES, wq + ((i64)t16 * KB + 2 * grp) * 32, R4G_WBYTES,
                      full + 8 * s, R4_NT != 0);
      if (sn > 0)
        r4wg::bulk_copy(r4g_scale_at(ring, stage, slot, it % R4G_SR),
                        wsz + ((i64)t16 * G + grp) * 16, sn * R4G_SBYTES, full + 8 * s, R4_NT != 0);
    }
  };
#endif
  // Weights before the PDL wait: the ring is empty, so the first ST stages need no release.
  if (lane == 0)
    for (int it = 0; it < min(R4_ST, iters); ++it) issue(it);
  r4_pdl_wait();  // the previous kernel may still be writing the activations
  // A group's activations: 128 K of each row (natural order), or 8 chunks of M rows (sm90a order:
  // act_stride is then one chunk's 16 M bytes).
  const i64 gstride = R4G_BULKA ? 8 * act_stride : 128 * R4G_EB;
#if R4G_SKS
  // Called for it = 0, 1, 2, ... in order (every path below): the unit's group by counting.
  int ag = g_begin % G;
  const auto src_of = [&](int it) {
    (void)it;
    const char* p = act + (i64)ag * gstride;
    if (++ag == G) ag = 0;
    return p;
  };
#else
  const auto src_of = [&](int it) { return act + (i64)(g_begin + it) * gstride; };
#endif
#if R4G_BULKA
  // The four warp leaders alone from here (the other producer threads go on to the epilogue's
  // barriers). Per stage, each leader: its weight copies (issue, above), its share of the
  // activation copies, one arrival on "full" (which counts the 4 leaders; a leader's expect_tx
  // precedes its arrival, so the phase cannot complete before every copy is counted).
  if (lane != 0) return;
  // One copy when the tile holds every row of the matrix (M <= NR: its 8 chunk runs of 16 M bytes
  // are contiguous in global memory, and land so, the consumers' descriptors then stepping 16 M
  // bytes per chunk: r4g_chunk_stride); else chunks pw and pw + 4 of the live rows at 16 NR bytes
  // apart. Rows past M are left as they are: they only feed output columns that are never stored.
  // Call 3 (H100) measured why: at M = 1 the 8 copies of 16 bytes per stage cost gate_up
  // (4, 2, 1, 2, 0, 4) 21.3 -> 23.2 us.
  const bool whole = act_stride == 16 * rows_live;
  const u32 abytes = (R4G_LESION & 1) ? 0u : whole ? (pw == 0 ? 128u * rows_live : 0u) : 32u * rows_live;
  const auto issue_act = [&](int it) {
    const int s = it % R4_ST;
    const char* src = src_of(it);
    if (abytes > 0) {
      const r4_saddr a_stage = ring + s * R4G_STAGE + R4G_AOFF;
      r4wg::mbar_expect_tx(full + 8 * s, abytes);
      if (whole) {
        r4wg::bulk_copy(a_stage, src, 128u * rows_live, full + 8 * s, false);
      } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int q = pw + 4 * h;
          r4wg::bulk_copy(a_stage + q * 16 * R4G_NR, src + q * act_stride, 16u * rows_live,
                          full + 8 * s, false);
        }
      }
    }
    r4wg::mbar_arrive(full + 8 * s);
  };
  for (int it = 0; it < iters; ++it) {
    if (it >= R4_ST) {
      const int s = it % R4_ST;
      r4wg::mbar_wait(empty + 8 * s, ((it / R4_ST) & 1) ^ 1);
      issue(it);
    }
    issue_act(it);
  }
#else
  u32x4 buf[R4G_DEPTH][R4G_PER];
#pragma unroll
  for (int j = 0; j < R4G_DEPTH - 1; ++j)
    if (!(R4G_LESION & 1) && j < iters) r4g_load_act(buf[j], src_of(j), rows_live, act_stride, pt);
  for (int it0 = 0; it0 < iters; it0 += R4G_DEPTH) {
#pragma unroll
    for (int j = 0; j < R4G_DEPTH; ++j) {
      const int it = it0 + j;
      if (it < iters) {
        const int s = it % R4_ST;
        if (!(R4G_LESION & 1) && it + R4G_DEPTH - 1 < iters)
          r4g_load_act(buf[(j + R4G_DEPTH - 1) % R4G_DEPTH], src_of(it + R4G_DEPTH - 1), rows_live,
                       act_stride, pt);
        if (it >= R4_ST) {
          r4wg::mbar_wait(empty + 8 * s, ((it / R4_ST) & 1) ^ 1);
          if (lane == 0) issue(it);
        }
        if (!(R4G_LESION & 1))
          r4g_store_act(buf[j], ring + s * R4G_STAGE + R4G_AOFF,
                        rows_live, pt);
        r4wg::fence_proxy_async();
        r4wg::mbar_arrive(full + 8 * s);
      }
    }
  }
#endif
}

// The lane's A fragments of one stage for one 16-row tile, as codes (the group scale is applied to
// the group's partial, below): 16-bit paths 8 k16 steps, int8 4 k32 steps (bytes 16 * code).
__device__ inline void r4g_dequant(r4_saddr wslot, int lane, u32 (&a)[R4G_STEPS][4]) {
#pragma unroll
  for (int b = 0; b < 2; ++b) {
    const u32x4 wv = r4_lds16(wslot + b * 512 + lane * 16);
#if R4_ACT_KIND == 4
    r4nv::dequant_e4m3_e2m1(wv.x, wv.y, a[2 * b]);  // e4m3 bytes e2m1 value * 2^-6 (mx_sm89)
    r4nv::dequant_e4m3_e2m1(wv.z, wv.w, a[2 * b + 1]);
#elif R4_ACT_KIND == 3
    if (R4G_LESION & 128) {  // experiment: the 3-instruction biased bytes, no zero point (wrong)
      r4nv::dequant_e4m3_int4_biased(wv.x, wv.y, a[2 * b]);
      r4nv::dequant_e4m3_int4_biased(wv.z, wv.w, a[2 * b + 1]);
    } else {
      r4nv::dequant_e4m3_int4(wv.x, wv.y, a[2 * b]);  // e4m3 bytes code * 2^-9
      r4nv::dequant_e4m3_int4(wv.z, wv.w, a[2 * b + 1]);
    }
#elif R4_ACT_KIND == 2
    r4nv::dequant_s8(wv.x, wv.y, a[2 * b]);
    r4nv::dequant_s8(wv.z, wv.w, a[2 * b + 1]);
#else
    const u32 w4[4] = {wv.x, wv.y, wv.z, wv.w};
#pragma unroll
    for (int s = 0; s < 4; ++s) {
#if R4_ACT_KIND == 1
      r4nv::dequant_bf16_codes(w4[s], a[4 * b + s]);
#else
      r4nv::dequant_f16_codes(w4[s], a[4 * b + s]);
#endif
    }
#endif
  }
}

// Pins a stage's A fragments (the registers an in-flight wgmma reads, or that a lesion keeps).
__device__ inline void r4g_pin(u32 (&a)[R4_NPW][R4G_STEPS][4]) {
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
    for (int st = 0; st < R4G_STEPS; ++st)
#pragma unroll
      for (int r = 0; r < 4; ++r) r4wg::fence_operand(a[p][st][r]);
}

// The group's partial accumulator: int32 for int8 activations (exact), f32 for 16-bit ones
// (products of codes and activations are exact in f32; the group's sum rounds as any f32 sum).
#if R4_ACT_KIND == 4
typedef float r4g_part;  // per k32 step; promoted by e8m0_times_64 (the bytes hold value * 2^-6)
__device__ inline float r4g_to_float(float f) { return f; }
#elif R4_ACT_KIND == 3
typedef float r4g_part;
#define R4G_CODE_SCALE 512.0f  // the e4m3 bytes hold code * 2^-9
__device__ inline float r4g_to_float(float f) { return f; }
#elif R4_ACT_KIND == 2
typedef i32 r4g_part;
#define R4G_CODE_SCALE 0.0625f  // the int8 bytes hold 16 * code
// int32 -> f32, exactly, in two full-rate instructions: I2F runs at a quarter of the FMA rate on
// sm_90, and at M = 64 the fold converts NPW * 32 partials per thread per group (gate_up w4a8
// lost 19 of its 43 us to the consumers' math there, H200 2026-11-30). A group's partial is
// |16 * code * q| summed over 128 K <= 16 * 8 * 127 * 128 < 2^22, so adding it to the bits of
// 1.5 * 2^23 gives exactly the float 1.5 * 2^23 + i, and subtracting 1.5 * 2^23 leaves i.
__device__ inline float r4g_to_float(i32 i) {
  return __int_as_float(i + 0x4B400000) - 12582912.0f;
}
#else
typedef float r4g_part;
#define R4G_CODE_SCALE 1.0f
__device__ inline float r4g_to_float(float f) { return f; }
#endif

// A tile's scales of a stage for rows g and g + 8, as the promotion multiplies them.
#if R4G_PSTEP
// MXFP4: k-step 2 b + h's from block b's exponent dword ew (mx_sm89: dword g holds (row g, s' 0),
// (row g, s' 1), (row g + 8, s' 0), (row g + 8, s' 1)). Test-only R4_BROKEN_SCALE=1 takes the
// other 32-K block's exponents (the GPU test's broken kernel).
__device__ inline void r4g_mx_scales(u32 ew, int h, float (&w)[2]) {
  const int e = R4_BROKEN_SCALE ? 1 - h : h;
  w[0] = r4nv::e8m0_times_64((ew >> (8 * e)) & 0xFFu);
  w[1] = r4nv::e8m0_times_64((ew >> (16 + 8 * e)) & 0xFFu);
}
#else
// The others: the group's f16 scales from the tile's scale dwords at sc, times the code scale.
__device__ inline void r4g_group_scales(r4_saddr sc, int g, float (&w)[2]) {
  w[0] = r4_f16_to_f32(r4_lds32(sc + 4 * g)) * R4G_CODE_SCALE;
  w[1] = r4_f16_to_f32(r4_lds32(sc + 4 * (g + 8))) * R4G_CODE_SCALE;
}
#endif

// This thread's activation row scales for the epilogue, rows m_base + 8 i + 2 t + h: the one-byte
// kinds' per-row scales (0 past M), loaded all at once after the PDL wait instead of two per 8-row
// step between the output stores (session 30's lesions put 2.8-3.4 us of a 64 x 256 tile at SK 1 in
// its epilogue; session 31's A/B, H100: 0.6-1.1 us less per such tile at SK 1 and 4, 0.3-0.5 us at
// MB 1, docs/PERF.md "Session 31"); 1 for w4a16, whose products by it the compiler folds (the PTX
// is the same as without them).
__device__ inline void r4g_row_scales(float (&sav)[R4G_NR / 8][2], const float* __restrict__ sa,
                                      int m_base, int t, int M) {
#pragma unroll
  for (int i = 0; i < R4G_NR / 8; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
#if R4_ACT_KIND >= 2
      const int m = m_base + 8 * i + 2 * t + h;
      sav[i][h] = m < M ? sa[m] : 0.0f;
#else
      (void)sa, (void)m_base, (void)t, (void)M;
      sav[i][h] = 1.0f;
#endif
    }
}

#if R4G_SKS
// The block whose range holds unit u: the largest c with floor(c * TG / C) <= u.
__device__ inline int r4g_cta_of(int u, int C, int TG) {
  return (int)(((i64)(u + 1) * C + TG - 1) / TG) - 1;
}
// The most blocks that share a tile: a block runs at least floor(TG / C) units (kernels/config.hpp
// stream_k mirrors it: the workspace holds that many slots per tile).
__device__ inline int r4g_sk_slots(int G, int TG, int C) {
  const int least = max(1, TG / C);
  return (G + least - 1) / least + 1;
}
// The consumer warpgroups alone (the producer streams on meanwhile).
__device__ inline void r4g_consumer_sync() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(128 * R4G_CW) : "memory");
}
#define R4G_FRAG (R4_NPW * R4G_NR / 2)  // accumulators per consumer thread
// The end of a segment (units u0 .. u0 + len - 1, all of N tile u0 / G). A whole tile is stored.
// Otherwise the consumer threads write their accumulators to the block's slot in fragment order
// (float4 q of consumer thread i at [slot][tile][q][i]: a warp's lanes write 512 contiguous bytes),
// and the last contributor to arrive adds the slots in order 0..nc-1 in registers (its own from
// its accumulators; 0 + p0 is p0 exactly) and stores the tile. The schedule is recomputed here
// rather than kept live through the main loop.
__device__ inline void r4g_sk_segment(float (&acc)[R4_NPW][R4G_NR / 2], int u0, int len,
                                      const float* __restrict__ sa, u16* __restrict__ out,
                                      void* __restrict__ ws, int M, int N, int K) {
  __shared__ int r4g_last;
  const int G = K >> 7, ntiles16 = N >> 4;
  const int T = (ntiles16 + R4G_SLOTS - 1) / R4G_SLOTS, TG = T * G;
  const int C = (int)gridDim.x, cta = (int)blockIdx.x;
  const int tq = u0 / G;
  r4_pdl_wait();  // a no-op by now (the producer waited); orders the writes below
  if (u0 != tq * G || len != G) {
    float4* slots = reinterpret_cast<float4*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES);
    const int c_first = r4g_cta_of(tq * G, C, TG);
    const int slot = cta - c_first;
    const int ti = (int)threadIdx.x;  // a consumer thread: 0 .. 128 * CW - 1
    const auto at = [&](int j, int q) {
      return slots + (((i64)j * T + tq) * (R4G_FRAG / 4) + q) * (128 * R4G_CW) + ti;
    };
#pragma unroll
    for (int q = 0; q < R4G_FRAG / 4; ++q) {
      const int f = 4 * q, p = f / (R4G_NR / 2), i = f % (R4G_NR / 2);
      *at(slot, q) = make_float4(acc[p][i], acc[p][i + 1], acc[p][i + 2], acc[p][i + 3]);
    }
    __threadfence();
    r4g_consumer_sync();
    u32* counters = static_cast<u32*>(ws);
    if (threadIdx.x == 0) {
      const int nc = r4g_cta_of(tq * G + G - 1, C, TG) - c_first + 1;
      if (nc > r4g_sk_slots(G, TG, C)) __trap();  // past the workspace's slots
      const u32 prev = atomicAdd(&counters[tq], 1u);
      r4g_last = prev == (u32)(nc - 1) ? nc : 0;
      if (prev == (u32)(nc - 1)) counters[tq] = 0u;  // every contributor has arrived
    }
    r4g_consumer_sync();
    const int nc = r4g_last;
    if (nc == 0) return;
    __threadfence();
    // Slot order, eight float4s per round trip.
#pragma unroll
    for (int h = 0; h < R4G_FRAG / 4; h += 8) {
      float4 sum[8];
#pragma unroll
      for (int q = 0; q < 8; ++q) sum[q] = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int j = 0; j < nc; ++j) {
#pragma unroll
        for (int q = 0; q < 8; ++q) {
          if (h + q >= R4G_FRAG / 4) break;
          const int f = 4 * (h + q), p = f / (R4G_NR / 2), i = f % (R4G_NR / 2);
          const float4 v = j == slot
                               ? make_float4(acc[p][i], acc[p][i + 1], acc[p][i + 2], acc[p][i + 3])
                               : r4_ld_coherent4(reinterpret_cast<const float*>(at(j, h + q)));
          sum[q].x += v.x;
          sum[q].y += v.y;
          sum[q].z += v.z;
          sum[q].w += v.w;
        }
      }
#pragma unroll
      for (int q = 0; q < 8; ++q) {
        if (h + q >= R4G_FRAG / 4) break;
        const int f = 4 * (h + q), p = f / (R4G_NR / 2), i = f % (R4G_NR / 2);
        acc[p][i] = sum[q].x;
        acc[p][i + 1] = sum[q].y;
        acc[p][i + 2] = sum[q].z;
        acc[p][i + 3] = sum[q].w;
      }
    }
  }
  // The tile's outputs (a whole segment, or the last contributor's sum); accumulator 4 i + e of
  // tile p is (row n0 + 8 (e >> 1), activation row m0 + (e & 1)).
  const int wg = (int)(threadIdx.x >> 7), warp = (int)((threadIdx.x >> 5) & 3);
  const int g = r4_lane() >> 2, t = r4_lane() & 3;
  float sav[R4G_NR / 8][2];
  r4g_row_scales(sav, sa, 0, t, M);
#if R4G_EPI_PACK_SK
  const bool wide = r4_epilogue_wide(out, N);
#endif
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    const int t16 = tq * R4G_SLOTS + (wg * R4_NPW + p) * 4 + warp;
    if (t16 >= ntiles16) continue;
    const int n0 = t16 * 16 + g;
#pragma unroll
    for (int i = 0; i < R4G_NR / 8; ++i) {
#if R4G_EPI_PACK_SK
      if (wide) {
        const int m = 8 * i + 2 * t;
        const float s0 = sav[i][0], s1 = sav[i][1];
        r4_store_bf16_packed(out, M, N, m, t16, g, acc[p][4 * i] * s0, acc[p][4 * i + 1] * s1,
                             acc[p][4 * i + 2] * s0, acc[p][4 * i + 3] * s1);
        continue;
      }
#endif
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = 8 * i + 2 * t + h;
        if (m >= M) continue;
        const float sm = sav[i][h];
        out[(i64)m * N + n0] = r4_f32_to_bf16(acc[p][4 * i + h] * sm);
        out[(i64)m * N + n0 + 8] = r4_f32_to_bf16(acc[p][4 * i + 2 + h] * sm);
      }
    }
  }
}
#endif

#if R4G_BAL
// A balanced grid's block (kernels/config.hpp balanced mirrors it): of T N tiles, the first
// W = floor(T / SMS) * SMS take one whole-K block each (blocks 0 .. W - 1), the other R = T - W
// tiles S blocks each (W .. W + R S - 1, the launch's grid). Whole blocks first: a fresh grid's
// blocks then land two whole ones per SM and one split one beside them; split blocks first ran
// gate_up 24-25 us instead of 19.4-19.7 (session 38 calls 2-3, H100, MXFP4 M = 1). Such a grid is
// launched under PDL up to M = 8 only (kernels/config.hpp pdl_allowed). `tail`: the tile's index
// among the R split ones (-1: a whole block). Recomputed where needed rather than kept live through
// the main loop.
struct r4g_bal_t {
  int tile, split, count, tail;
};
__device__ inline r4g_bal_t r4g_bal(int T) {
  const int W = T / R4G_BAL_SMS * R4G_BAL_SMS, b = (int)blockIdx.x;
  if (b < W) return {b, 0, 1, -1};
  const int S = ((int)gridDim.x - W) / (T - W), j = b - W;
  return {W + j / S, j % S, S, j / S};
}
#define R4G_TW (R4G_SLOTS * 16)  // a tile's columns (output n)
// The block's f32 partial tile in the workspace (after the counters): [tail * S + split][NR][TW].
__device__ inline float* r4g_bal_part(void* ws, const r4g_bal_t& b) {
  return reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES) +
         (i64)(b.tail * b.count + b.split) * (R4G_NR * R4G_TW);
}
// After every thread has stored its partial: the tile's last-arriving split adds the S partials
// in split order (deterministic) and writes bf16, four consecutive outputs per thread, the loads
// of four splits in flight at once. Whole-K blocks stored their outputs already.
__device__ inline void r4g_bal_finish(u16* __restrict__ C, void* __restrict__ ws, int M, int N) {
  const r4g_bal_t b = r4g_bal(((N >> 4) + R4G_SLOTS - 1) / R4G_SLOTS);
  if (b.count == 1) return;
  __shared__ int r4g_bal_last;
  u32* counters = static_cast<u32*>(ws);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 prev = atomicAdd(&counters[b.tail], 1u);
    r4g_bal_last = prev == (u32)(b.count - 1);
  }
  __syncthreads();
  if (!r4g_bal_last) return;
  __threadfence();
  const r4g_bal_t first{b.tile, 0, b.count, b.tail};
  const float* part = r4g_bal_part(ws, first);
  const int n_first = b.tile * R4G_TW;
  const int n4 = min(R4G_TW, N - n_first) >> 2, total = min(R4G_NR, M) * n4;
  const i64 step = (i64)R4G_NR * R4G_TW;  // one split's partial tile
#pragma unroll 1
  for (int i = (int)threadIdx.x; i < total; i += (int)blockDim.x) {
    const int r = i / n4, c = 4 * (i % n4);
    const float* p = part + r * R4G_TW + c;
    float4 s = r4_ld_coherent4(p);
    int k = 1;
#pragma unroll 1
    for (; k + 4 <= b.count; k += 4) {
      float4 v[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) v[q] = r4_ld_coherent4(p + (k + q) * step);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        s.x += v[q].x;
        s.y += v[q].y;
        s.z += v[q].z;
        s.w += v[q].w;
      }
    }
#pragma unroll 1
    for (; k < b.count; ++k) {
      const float4 v = r4_ld_coherent4(p + k * step);
      s.x += v.x;
      s.y += v.y;
      s.z += v.z;
      s.w += v.w;
    }
    u16* out = C + (i64)r * N + n_first + c;
    out[0] = r4_f32_to_bf16(s.x);
    out[1] = r4_f32_to_bf16(s.y);
    out[2] = r4_f32_to_bf16(s.z);
    out[3] = r4_f32_to_bf16(s.w);
  }
  if (threadIdx.x == 0) counters[b.tail] = 0u;
}
#endif

#if R4G_BAL
// A balanced block's epilogue (consumer threads): a whole-K block stores bf16 as SK 1 does, a
// split one its partial tile (r4g_bal_part), scaled by the activation rows' scales `sav`.
__device__ inline void r4g_bal_store(const float (&acc)[R4_NPW][R4G_NR / 2],
                                     const float (&sav)[R4G_NR / 8][2], u16* __restrict__ C,
                                     void* __restrict__ ws, int M, int N, int wg, int warp, int g,
                                     int t) {
  const int ntiles16 = N >> 4;
  const r4g_bal_t bal = r4g_bal((ntiles16 + R4G_SLOTS - 1) / R4G_SLOTS);
  float* const bpart = bal.count > 1 ? r4g_bal_part(ws, bal) : nullptr;
#if R4G_EPI_PACK
  const bool wide = bal.count == 1 && r4_epilogue_wide(C, N);
#endif
#pragma unroll
  for (int p = 0; p < R4_NPW; ++p) {
    const int t16 = bal.tile * R4G_SLOTS + (wg * R4_NPW + p) * 4 + warp;
    if (t16 < ntiles16 && (!(R4G_LESION & 4) || M < 0)) {
      const int n0 = t16 * 16 + g, col = n0 - bal.tile * R4G_TW;
#pragma unroll
      for (int i = 0; i < R4G_NR / 8; ++i) {
        const int m = 8 * i + 2 * t;
        const float v00 = acc[p][4 * i] * sav[i][0], v10 = acc[p][4 * i + 1] * sav[i][1];
        const float v01 = acc[p][4 * i + 2] * sav[i][0], v11 = acc[p][4 * i + 3] * sav[i][1];
        if (bpart != nullptr) {  // rows past M too: the reduction reads live rows only
          bpart[m * R4G_TW + col] = v00;
          bpart[(m + 1) * R4G_TW + col] = v10;
          bpart[m * R4G_TW + col + 8] = v01;
          bpart[(m + 1) * R4G_TW + col + 8] = v11;
          continue;
        }
#if R4G_EPI_PACK
        if (wide) {
          r4_store_bf16_packed(C, M, N, m, t16, g, v00, v10, v01, v11);
          continue;
        }
#endif
        if (m < M) {
          C[(i64)m * N + n0] = r4_f32_to_bf16(v00);
          C[(i64)m * N + n0 + 8] = r4_f32_to_bf16(v01);
        }
        if (m + 1 < M) {
          C[(i64)(m + 1) * N + n0] = r4_f32_to_bf16(v10);
          C[(i64)(m + 1) * N + n0 + 8] = r4_f32_to_bf16(v11);
        }
      }
    }
  }
}
#endif

// The kernel body; the .cu files wrap it in their extern "C" entry points.
__device__ inline void r4g_gemm(const void* __restrict__ act,  // [M, K] f16/bf16/int8
                                const float* __restrict__ sa,  // [M] int8 row scales, or null
                                const u32x4* __restrict__ wq, const u32* __restrict__ wsz,
                                u16* __restrict__ C, void* __restrict__ ws, int M, int N, int K) {
  if (R4_PDL_TRIGGER == 1) r4_pdl_launch_dependents();
  extern __shared__ __align__(1024) char r4_smem[];
  const r4_saddr base = r4_saddr_of(r4_smem);
  const r4_saddr full = base, empty = base + 8 * R4_ST;
  const r4_saddr ring = base + R4G_RING_OFFSET;
  const int KB = K >> 6, G = K >> 7;
#if R4G_SKS
  const int ntiles16 = N >> 4;
  const int TG = (ntiles16 + R4G_SLOTS - 1) / R4G_SLOTS * G;  // units: N tiles x groups
  const int nct = (int)gridDim.x, cta = (int)blockIdx.x;     // the launcher: nct <= TG
  const int g_begin = (int)((i64)cta * TG / nct);            // the block's first unit
  const int iters = (int)((i64)(cta + 1) * TG / nct) - g_begin;
  const int tile16_first = 0, m_base = 0;  // one M tile (is_valid)
#elif R4G_BAL
  const int ntiles16 = N >> 4;
  const r4g_bal_t bal = r4g_bal((ntiles16 + R4G_SLOTS - 1) / R4G_SLOTS);
  const int g_begin = bal.split * G / bal.count;  // G * S < 2^31 (kernels/config.hpp balanced)
  const int iters = (bal.split + 1) * G / bal.count - g_begin;
  const int tile16_first = bal.tile * R4G_SLOTS;
  const int m_base = 0;  // one M tile (is_valid)
#else
  const int g_begin = r4_split_begin(blockIdx.y, G);
  const int g_end = r4_split_begin(blockIdx.y + 1, G);
  const int iters = g_end - g_begin;
  const int ntiles16 = N >> 4;
  const int tile16_first = (int)blockIdx.x * R4G_SLOTS;
  const int m_base = (int)blockIdx.z * R4G_NR;
#endif
  const int rows_live = min(R4G_NR, M - m_base);

  if (threadIdx.x == 0) {
    for (int s = 0; s < R4_ST; ++s) {
      // The producer's four warp leaders (R4G_BULKA) or all its threads (+ the transactions).
      r4wg::mbar_init(full + 8 * s, R4G_BULKA ? 4 : 128);
      r4wg::mbar_init(empty + 8 * s, 4 * R4G_CW);  // one arrival per consumer warp
    }
    r4wg::fence_barrier_init();
  }
  __syncthreads();
  if (R4G_LESION & 8) {  // experiment only: the launch alone (above)
    r4_pdl_wait();
    return;
  }

  const int wg = (int)(threadIdx.x >> 7);
#if !R4G_SKS && !R4G_BAL
  const R4Out o{C, reinterpret_cast<float*>(static_cast<char*>(ws) + R4_SPLITK_COUNTER_BYTES), M, N};
#endif
  if (wg == R4G_CW) {
    // The tile's first row: in the sm90a order (R4G_BULKA) at byte 16 m_base of each chunk run of
    // 16 M bytes; in natural order at row m_base of K elements.
    r4g_produce(ring, full, empty, wq, wsz,
                static_cast<const char*>(act) + (R4G_BULKA ? (i64)m_base * 16 : (i64)m_base * K * R4G_EB),
                rows_live, R4G_BULKA ? (i64)M * 16 : (i64)K * R4G_EB, tile16_first, ntiles16, KB, G,
                g_begin, iters);
  } else {
    const int warp = (int)((threadIdx.x >> 5) & 3), lane = r4_lane();
    const int g = lane >> 2, t = lane & 3;
#if R4G_SKS
    (void)t;  // the segment ends recompute it (r4g_sk_segment)
#endif
    float acc[R4_NPW][R4G_NR / 2];
    r4g_part part[R4_NPW][R4G_NPART][R4G_NR / 2];
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
      for (int i = 0; i < R4G_NR / 2; ++i) {
        acc[p][i] = 0.0f;
#pragma unroll
        for (int q = 0; q < R4G_NPART; ++q) part[p][q][i] = 0;
      }
    int se = 0;  // it % R4G_SR, carried (r4g_scale_at)
    // The B tile's chunk stride (the descriptors' LBO): 16 NR bytes (kernels/nv/wgmma_layout_sm90a.h
    // lbo_bytes), or 16 M where the producer copied a tile holding every row in one run (R4G_BULKA).
#if R4G_BULKA
    const u32 a_cs = m_base == 0 && rows_live == M ? 16u * M : 16u * R4G_NR;
#else
    const u32 a_cs = r4::wgmma_layout::lbo_bytes(R4G_NR);
#endif
#if R4G_SKS
    // The block's range, one tile's segment at a time; each segment ends in r4g_sk_segment.
    for (int seg_first = 0; seg_first < iters;) {
      const int u0 = g_begin + seg_first;
      const int seg_end = min(iters, seg_first + G - u0 % G);
#else
    {
      const int seg_first = 0, seg_end = iters;
#endif
      // The stage's A fragments (the lane's dequantised codes of its NPW tiles).
      const auto dequant = [&](int it, u32 (&a)[R4_NPW][R4G_STEPS][4]) {
        const r4_saddr stage = ring + (it % R4_ST) * R4G_STAGE;
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
          r4g_dequant(stage + ((wg * R4_NPW + p) * 4 + warp) * R4G_WBYTES, lane, a[p]);
      };
      // The stage's wgmmas, committed as one group; under R4G_PHALF those of 64-K block blk only.
      const auto mma = [&](int it, u32 (&a)[R4_NPW][R4G_STEPS][4], int blk) {
        const r4_saddr a_stage = ring + (it % R4_ST) * R4G_STAGE + R4G_AOFF;
        const int st0 = R4G_PHALF ? 2 * blk : 0;
        r4wg::wgmma_fence();
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
          for (int st = st0; st < st0 + (R4G_PHALF ? 2 : R4G_STEPS); ++st) {
            // k-step st's two core matrices along K: chunks 2 st and 2 st + 1, a_cs bytes apart.
            const u64 desc = r4wg::smem_desc(a_stage + 2 * st * a_cs, a_cs,
                                             r4::wgmma_layout::sbo_bytes());
#if R4G_PSTEP
            // Each k32 step (one 32-K exponent block) into a partial of its own, afresh.
            r4wg::wgmma_step<R4_ACT_KIND, R4G_NR>(part[p][st - st0], a[p][st], desc, 0);
#else
            // The stage is one 128-K group: its first k-step starts the group's partial afresh.
            r4wg::wgmma_step<R4_ACT_KIND, R4G_NR>(part[p][0], a[p][st], desc, st > 0 ? 1 : 0);
#endif
          }
        r4wg::wgmma_commit();
      };
      // After the stage's wgmmas (of block blk under R4G_PHALF) have retired: the group's
      // promotion, one multiply by its f32 scale per accumulator (rows g, g+8).
#if R4G_SC_EARLY
      // The stage's scales as f32, per tile: [k-step partial][rows g, g + 8].
      float wf[R4_NPW][R4G_PSTEP ? 4 : 1][2];
      const auto load_scales = [&](int it) {
        const r4_saddr stage = ring + (it % R4_ST) * R4G_STAGE;
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p) {
          const r4_saddr sc = r4g_scale_at(ring, stage, (wg * R4_NPW + p) * 4 + warp, se);
#if R4G_PSTEP
#pragma unroll
          for (int b = 0; b < 2; ++b) {
            const u32 ew = r4_lds32(sc + 32 * b + 4 * g);
#pragma unroll
            for (int h = 0; h < 2; ++h) r4g_mx_scales(ew, h, wf[p][2 * b + h]);
          }
#else
          r4g_group_scales(sc, g, wf[p][0]);
#endif
        }
      };
#endif
      const auto promote = [&](int it, int blk) {
        const int s = it % R4_ST;
        const r4_saddr stage = ring + s * R4G_STAGE;
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
          for (int q = 0; q < R4G_NPART; ++q)
#pragma unroll
            for (int i = 0; i < R4G_NR / 2; ++i) r4wg::fence_operand(part[p][q][i]);
#if R4G_SC_EARLY
        (void)stage;
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p) {
#if R4G_PSTEP
#pragma unroll
          for (int bb = 0; bb < R4G_PBLK; ++bb) {
            const int b = R4G_PHALF ? blk : bb;
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
              for (int i = 0; i < R4G_NR / 2; ++i)
                acc[p][i] =
                    fmaf(part[p][2 * bb + h][i], wf[p][2 * b + h][(i & 2) ? 1 : 0], acc[p][i]);
          }
#else
#pragma unroll
          for (int i = 0; i < R4G_NR / 2; ++i)
            acc[p][i] = fmaf(r4g_to_float(part[p][0][i]), wf[p][0][(i & 2) ? 1 : 0], acc[p][i]);
#endif
        }
#else
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p) {
          const r4_saddr sc = r4g_scale_at(ring, stage, (wg * R4_NPW + p) * 4 + warp, se);
#if R4G_PSTEP
          // mx_sm89 exponents: 32 bytes per 64-K block b (r4g_mx_scales); k-step st = 2 b + s'.
#pragma unroll
          for (int bb = 0; bb < R4G_PBLK; ++bb) {
            const int b = R4G_PHALF ? blk : bb;
            const u32 ew = r4_lds32(sc + 32 * b + 4 * g);
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              float w[2];
              r4g_mx_scales(ew, h, w);
#pragma unroll
              for (int i = 0; i < R4G_NR / 2; ++i)
                acc[p][i] = fmaf(part[p][2 * bb + h][i], (i & 2) ? w[1] : w[0], acc[p][i]);
            }
          }
#else
          float w[2];
          r4g_group_scales(sc, g, w);
#pragma unroll
          for (int i = 0; i < R4G_NR / 2; ++i)
            acc[p][i] = fmaf(r4g_to_float(part[p][0][i]), (i & 2) ? w[1] : w[0], acc[p][i]);
#endif
        }
#endif
        (void)blk;
      };
      // Then the stage's release.
      const auto release = [&](int it) {
        const int s = it % R4_ST;
        // A proxy fence between this warp's wgmma reads of the stage (async proxy) and the release
        // that lets the producer overwrite it (cp.async or st.shared: the generic proxy). Session
        // 15: the direct producer, whose copies start right after the release, failed 1,157 of
        // 45,960 sweep checks without it and none with it (cost on the staged producer +0.2-1.5%).
        if (R4G_WARF) r4wg::fence_proxy_async();
        se = se + 1 == R4G_SR ? 0 : se + 1;
        __syncwarp();
        if (lane == 0) r4wg::mbar_arrive(empty + 8 * s);
      };
#if R4G_DQA
      // Dequantise ahead (experiment): the next stage's fragments are built while this stage's
      // wgmmas run, into a second set of registers; the current set stays pinned (fence_operand)
      // until the wait that retires the wgmmas reading it.
      u32 a[R4_NPW][R4G_STEPS][4], an[R4_NPW][R4G_STEPS][4];
      if (seg_first < seg_end && !(R4G_LESION & 2)) {
        r4wg::mbar_wait(full + 8 * (seg_first % R4_ST), (seg_first / R4_ST) & 1);
        dequant(seg_first, a);
      }
      for (int it = seg_first; it < seg_end; ++it) {
        if (R4G_LESION & 2) {
          const int s = it % R4_ST;
          r4wg::mbar_wait(full + 8 * s, (it / R4_ST) & 1);
          __syncwarp();
          if (lane == 0) r4wg::mbar_arrive(empty + 8 * s);
          continue;
        }
        mma(it, a, 0);
        if (it + 1 < seg_end) {
          r4wg::mbar_wait(full + 8 * ((it + 1) % R4_ST), ((it + 1) / R4_ST) & 1);
          dequant(it + 1, an);
        }
        r4wg::wgmma_wait<0>();
        r4g_pin(a);
        promote(it, 0);
        release(it);
#pragma unroll
        for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
          for (int st = 0; st < R4G_STEPS; ++st)
#pragma unroll
            for (int r = 0; r < 4; ++r) a[p][st][r] = an[p][st][r];
      }
#else
      for (int it = seg_first; it < seg_end; ++it) {
        const int s = it % R4_ST;
        r4wg::mbar_wait(full + 8 * s, (it / R4_ST) & 1);
        if (R4G_LESION & 2) {
          __syncwarp();
          if (lane == 0) r4wg::mbar_arrive(empty + 8 * s);
          continue;
        }
        u32 a[R4_NPW][R4G_STEPS][4];
        if (R4G_LESION & 32) {
#pragma unroll
          for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
            for (int b = 0; b < 2; ++b) {
              const u32x4 wv =
                  r4_lds16(ring + (it % R4_ST) * R4G_STAGE +
                           ((wg * R4_NPW + p) * 4 + warp) * R4G_WBYTES + b * 512 + lane * 16);
#pragma unroll
              for (int q = 0; q < R4G_STEPS / 2; ++q) {
                a[p][b * (R4G_STEPS / 2) + q][0] = wv.x;
                a[p][b * (R4G_STEPS / 2) + q][1] = wv.y;
                a[p][b * (R4G_STEPS / 2) + q][2] = wv.z;
                a[p][b * (R4G_STEPS / 2) + q][3] = wv.w;
              }
            }
        } else {
          dequant(it, a);
        }
#if R4G_SC_EARLY
        load_scales(it);
#endif
#pragma unroll
        for (int blk = 0; blk < 2; blk += R4G_PBLK) {
          if (R4G_LESION & 16) {
            r4g_pin(a);
            if (!(R4G_LESION & 64)) promote(it, blk);
            continue;
          }
          mma(it, a, blk);
          if (R4G_LESION & 64) {
            r4wg::wgmma_wait<0>();
            continue;
          }
          // Every stage waits for its own wgmmas before the promotion. Keeping two stages' groups
          // in flight (two partials, wgmma.wait_group 1) was tried (session 14): ptxas 13.0 then
          // warns C7514 and serialises the wgmmas, since the promotion reads accumulator registers
          // between a wgmma's issue and the wait that retires it. The overlap comes from a second
          // consumer warpgroup, from other blocks on the SM, or from dequantising ahead (R4G_DQA).
          r4wg::wgmma_wait<0>();
          promote(it, blk);
        }
        release(it);
      }
#endif
#if !R4G_SKS
    }
#endif
#if R4G_SKS
      r4g_sk_segment(acc, u0, seg_end - seg_first, sa, C, ws, M, N, K);
#pragma unroll
      for (int p = 0; p < R4_NPW; ++p)
#pragma unroll
        for (int i = 0; i < R4G_NR / 2; ++i) acc[p][i] = 0.0f;
      seg_first = seg_end;
    }
    if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();
  }
}
#else
    if (R4_PDL_TRIGGER == 2) r4_pdl_launch_dependents();
    r4_pdl_wait();  // returns at once by now (the producer waited); orders the writes below
    float sav[R4G_NR / 8][2];
    r4g_row_scales(sav, sa, m_base, t, M);
#if R4G_BAL
    r4g_bal_store(acc, sav, C, ws, M, N, wg, warp, g, t);
#else
#if R4G_EPI_PACK
    const bool wide = r4_epilogue_wide(C, N);
#endif
    // D[row][col]: row = weight row (output n), col = activation row (output m).
#pragma unroll
    for (int p = 0; p < R4_NPW; ++p) {
      const int t16 = tile16_first + (wg * R4_NPW + p) * 4 + warp;
      if (t16 < ntiles16 && (!(R4G_LESION & 4) || M < 0)) {
        const int n0 = t16 * 16 + g;
#pragma unroll
        for (int i = 0; i < R4G_NR / 8; ++i) {
          const int m = m_base + 8 * i + 2 * t;
          const float sa0 = sav[i][0], sa1 = sav[i][1];
#if R4G_EPI_PACK
          if (R4_SK == 1 && wide) {
            r4_store_bf16_packed(C, M, N, m, t16, g, acc[p][4 * i] * sa0, acc[p][4 * i + 1] * sa1,
                                 acc[p][4 * i + 2] * sa0, acc[p][4 * i + 3] * sa1);
            continue;
          }
#endif
          o.put(m, n0, acc[p][4 * i] * sa0);
          o.put(m + 1, n0, acc[p][4 * i + 1] * sa1);
          o.put(m, n0 + 8, acc[p][4 * i + 2] * sa0);
          o.put(m + 1, n0 + 8, acc[p][4 * i + 3] * sa1);
        }
      }
    }
#endif  // R4G_BAL
    // Unformatted: clang-format indents by the stream-K branch above, which closes the function.
    // clang-format off
  }
#if R4G_BAL
  if (!(R4G_LESION & 4)) r4g_bal_finish(C, ws, M, N);
#else
  if (!(R4G_LESION & 4)) r4_splitk_finish(o, ws, tile16_first * 16, R4G_SLOTS * 16, m_base, R4G_NR);
#endif
}
// clang-format on
#endif  // R4G_SKS

#endif  // R4_KERNELS_NV_GEMM_W4_SM90A_H
