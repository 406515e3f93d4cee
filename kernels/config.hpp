// The kernel family's config tuple and the ONE predicate that says which configs are legal for
// an (arch, shape). The planner, the generated headers' static_asserts and rows read back from
// the database all call is_valid(); nothing else encodes these ranges.
//
// Knobs (the seeds' order; they change speed only, never results beyond f32 summation order):
//   WV  warps (waves) per block                      {1, 2, 4, 8}
//   SK  split-K factor (64-K blocks split evenly)    {1, 2, 4, 8, 16}, SK <= K/64
//   MB  16-row M tiles per block                     {1, 2, 4}, MB <= ceil(M/16)
//   NPW 16-row N tiles per warp                      {1, 2, 4}, WV*NPW <= N/16
//   NT  evict-first (NVIDIA) / non-temporal (AMD) weight loads {0, 1}
// Register budget (NVRTC 13.0, sm_90, ptxas -v, 2026-11-30, cp.async pipeline version): a warp
// holds NPW*MB*8 accumulators (twice that in gemm_w4a8_nt: int32 per group + f32 total) and the
// dequantised A fragments of its NPW tiles. NPW*MB = 16 spills in both kernels (255 registers,
// 160-852 B of spill stores); NPW*MB <= 8 fits (66-255), so the budget is NPW*MB <= 8.
// Shared memory (kernels/gemm_common.h): WV*S*NPW*576 B of weight ring plus two activation
// chunks of MB*16 rows x S 64-K blocks; S (pipeline stages) is the largest of 8, 4, 2 that fits in
// 48 KiB (no opt-in attribute needed); a config where even S = 2 does not fit is invalid.
// Split-K counters: at most R4_SPLITK_COUNTERS (16384, kernels/splitk.h) block tiles.
//
// Generations (DESIGN.md "Config tuple"): gen 0 is the mma.sync generation above (sm_80+, AMD
// WMMA), whose tuple is the seeds' (WV, SK, MB, NPW, NT). gen 1 is the sm90a generation
// (kernels/nv/gemm_w4_sm90a.h: bulk-copy ring, warp specialisation, wgmma), on a compute
// capability 9.x device, compiled for sm_90a; its tuple is (WV, SK, MB, NPW, NT, ST):
//   WV  consumer warps: 4 or 8 (one or two consumer warpgroups; a producer warpgroup is added)
//   SK  split-K over the 128-K groups                   {1, 2, 4, 8, 16}, SK <= K/128; or 132
//       (kSm90aStreamK): stream-K over at most 132 blocks (WV 8, ST 4, MB = ceil(M/16), below);
//       or 255 (kSm90aBalanced): whole-K tiles for full waves, the rest split (WV 4, NPW 1, below)
//   MB  16-row M tiles per block = wgmma N / 16         {1, 2, 3, 4}, MB <= ceil(M/16); 3 at ST 4
//   NPW 16-row N tiles per consumer warp (each consumer warpgroup owns NPW 64-row tiles) {1, 2}
//   NT  L2 evict-first weight copies                    {0, 1}
//   ST  stages of the shared-memory ring (one 128-K group each) {4, 6, 8}, the ring within the
//       227 KiB a block may opt into (kSm90aSharedLimit).
// Registers (NVRTC 13.0, sm_90a, ptxas -v, 2026-11-30, per-group partials): a consumer holds
// NPW x (MB*8 f32 accumulators + MB*8 partials + the stage's A fragments: 32 registers of codes
// for 16-bit activations, 16 for int8). WV 8 caps a thread at 168 registers (384 threads under
// __launch_bounds__(threads, 1)); the tuples over it are 16-bit WV 8, NPW 2, MB 4 (428 B of
// spill stores) and MB 3 (12 B), so is_valid leaves them out. Every other tuple compiles without
// spills.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/amd/config_amd.hpp"
#include "tuner/gpu/arch.hpp"

namespace r4::kernels {

// The fp8-activation GEMMs of issue 13 come after quant_act so that the first three keep their
// numbers (kernels/family.cpp names them; the database stores names).
enum class KernelId {
  gemm_w4a16_nt,
  gemm_w4a8_nt,
  quant_act,
  gemm_w4a8fp8_nt,
  gemm_mxfp4a8fp8_nt,
  quant_act_fp8,
};

// The activation quantisers (no knobs: their one config is Config{}).
[[nodiscard]] constexpr bool is_quant(KernelId id) {
  return id == KernelId::quant_act || id == KernelId::quant_act_fp8;
}

// e4m3 activations (quant_act_fp8's output) and mma.sync .e4m3: NVIDIA sm_89 and newer.
[[nodiscard]] constexpr bool is_fp8_act(KernelId id) {
  return id == KernelId::gemm_w4a8fp8_nt || id == KernelId::gemm_mxfp4a8fp8_nt;
}
[[nodiscard]] constexpr bool has_fp8_mma(const gpu::Arch& a) {
  return a.vendor == gpu::Vendor::nvidia && (a.major > 8 || (a.major == 8 && a.minor >= 9));
}
// Some fp8-activation GEMM runs on the arch (NVIDIA fp8 mma.sync / wgmma, or AMD gfx12 fp8 WMMA
// for gemm_w4a8fp8_nt alone): where the verifier builds quant_act_fp8.
[[nodiscard]] constexpr bool has_fp8_act_path(const gpu::Arch& a) {
  return has_fp8_mma(a) || amd::has_fp8_wmma_path(a);
}

struct Config {
  int wv = 1;
  int sk = 1;
  int mb = 1;
  int npw = 1;
  int nt = 0;
  int gen = 0;  // 0: the mma.sync generation; 1: the sm90a generation; 2: the ldg generation
  int st = 0;   // sm90a ring stages / ldg 64-K blocks per register batch (0 in gen 0)
  friend constexpr bool operator==(const Config&, const Config&) = default;
};

inline constexpr int kGenMmaSync = 0;
inline constexpr int kGenSm90a = 1;
inline constexpr int kGenLdg = 2;

struct Shape {
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t m = 1;
};

inline constexpr int kGroup = 128;  // K per scale (GEMM_W4_GROUP)
inline constexpr int kMaxM = 64;    // GEMM_W4_MAX_M
inline constexpr int kSplitKCounters = 16384;
inline constexpr int kSharedLimit = 49024;  // 48 KiB less the kernels' static shared bytes
// The sm90a generation's dynamic shared memory limit: the 227 KiB opt-in of a compute capability
// 9.0 block (232448 bytes; cudaDevAttrMaxSharedMemoryPerBlockOptin on the H100 / H200) less 1 KiB
// of static shared memory (the split-K flag) and slack.
inline constexpr int kSm90aSharedLimit = 232448 - 1024;

// The order quant_act / quant_act_fp8 write their 8-bit activations in, for the GEMM config that
// reads them: natural, or the sm90a generation's (kernels/nv/wgmma_layout_sm90a.h act_offset_8: a
// dword transpose within each 64-byte block, rows interleaved chunk-major), from which every
// one-byte sm90a config's producer bulk-copies a stage's B tile as is (session 33; before, only
// the int8 configs with MB = 4 and two consumer warpgroups read it, the others permuted natural
// order through a staging ring). Every path that pairs a quantiser with a GEMM asks this
// function: the tuner's checks and races, the step chain, r4kern, r4d.
// gemm_mxfp4a8fp8_nt's sm90a configs read the sm90a_mx order (act_offset_mx: the same chunk-major
// rows, another dword permutation within each 64-K block), since its mx_sm89 weights carry another
// k map: each k32 step inside one 32-K exponent block.
enum class ActOrder : int { natural = 0, sm90a = 1, sm90a_mx = 2 };
[[nodiscard]] constexpr ActOrder act_order(KernelId id, const Config& c) {
  if (c.gen != kGenSm90a || id == KernelId::gemm_w4a16_nt) return ActOrder::natural;
  return id == KernelId::gemm_mxfp4a8fp8_nt ? ActOrder::sm90a_mx : ActOrder::sm90a;
}

// Mirrors kernels/nv/gemm_w4_sm90a.h (R4G_STAGE, R4G_SRING, R4G_RING_OFFSET): the barriers' 1 KiB,
// then ST stages of 4*(WV/4)*NPW sm80 tiles x 1 KiB of weights (+ 64 B of their scales without
// R4G_SCHUNK) and 16*MB activation rows x 128 K, then the scale ring (2 ST groups of 64 B per
// tile, with R4G_SCHUNK).
[[nodiscard]] constexpr std::int64_t sm90a_act_bytes(KernelId id, const Config& c) {
  const std::int64_t act_bytes = id == KernelId::gemm_w4a16_nt ? 2 : 1;
  return 16 * c.mb * 128 * act_bytes;
}
// Stream-K (kernels/nv/gemm_w4_sm90a.h R4G_SKS): SK = kSm90aStreamK launches a 1-D grid of at
// most that many blocks (one wave of an H100 / H200 SXM's 132 SMs at one block per SM; on a device
// with fewer SMs such a config still runs correctly, in more than one wave, and loses its races)
// over every N tile's 128-K groups in equal contiguous ranges.
inline constexpr int kSm90aStreamK = 132;
[[nodiscard]] constexpr bool is_stream_k(const Config& c) {
  return c.gen == kGenSm90a && c.sk == kSm90aStreamK;
}
// Balanced grid (kernels/nv/gemm_w4_sm90a.h R4G_BAL; session 38): SK = kSm90aBalanced launches
// a 1-D grid that gives the first floor(T / 132) * 132 of the shape's T N tiles one whole-K block
// each and splits each of the other R tiles over S = min(floor(132 / R), K / 128) blocks (split-K
// reduced by the tile's last-arriving block), so that an H100 / H200 SXM's 132 SMs hold one more
// block each, a short one, instead of R of them a whole extra tile (gate_up 17408 x 5120 at 64 rows
// a tile: 272 tiles, 264 whole blocks and 8 x 16 split ones; session 37 measured the 8 SMs with a
// third whole block finishing last). Elsewhere it runs correctly, in other waves.
inline constexpr int kSm90aBalanced = 255;
inline constexpr int kSm90aBalancedSms = 132;  // gemm_w4_sm90a.h R4G_BAL_SMS
[[nodiscard]] constexpr bool is_balanced(const Config& c) {
  return c.gen == kGenSm90a && c.sk == kSm90aBalanced;
}
// A balanced launch's geometry for an N x K shape: N tiles, whole-K blocks, split tiles, splits
// per split tile, blocks, the f32 bytes of one block's partial tile (16 * MB rows by WV * NPW *
// 16), and the workspace: the split-K counters, then rest * splits partial tiles (the family's and
// r4d's workspace_bytes).
struct Balanced {
  std::int64_t tiles = 0, whole = 0, rest = 0, splits = 1, blocks = 0, tile_bytes = 0,
               workspace = 0;
};
[[nodiscard]] constexpr Balanced balanced(const Config& c, std::int64_t n, std::int64_t k) {
  Balanced b;
  const std::int64_t per = static_cast<std::int64_t>(c.wv) * c.npw, groups = k / kGroup;
  b.tiles = (n / 16 + per - 1) / per;
  b.whole = b.tiles / kSm90aBalancedSms * kSm90aBalancedSms;
  b.rest = b.tiles - b.whole;
  if (b.rest > 0) {
    b.splits = kSm90aBalancedSms / b.rest;
    if (b.splits > groups) b.splits = groups;
    if (b.splits < 1) b.splits = 1;
  }
  b.blocks = b.whole + b.rest * b.splits;
  b.tile_bytes = 16LL * c.mb * per * 16 * 4;
  b.workspace = kSplitKCounters * 4LL + b.rest * b.splits * b.tile_bytes;
  return b;
}
// Whether a config's GEMM may launch under PDL (after its quantiser or the previous kernel). Not
// a balanced grid: its time depends on where its blocks land, and under PDL they land as the
// previous kernel's leave. Session 38 (H100, gate_up, quant_act + GEMM; docs/PERF.md): MXFP4
// (4, 255, 1, 1, 1, 4) M = 1 ran the pair in 21.0 us plain and 25.0 under PDL (SK 1: 24.8 under
// PDL), w4a8fp8 M = 16 21.8 plain, 26.2 under PDL (SK 1 26.1); with the GEMM's trigger at its exit
// (R4_PDL_TRIGGER 0) the same. Every launcher asks this (a8_gemm_options, the step chains, r4d).
// Session 44 (H100, docs/PERF.md): once every kernel asks for the largest shared-memory carveout
// (the CUDA backend, r4d), the balanced pairs as a race times them run ~1 us faster under PDL
// than plain at M = 1 and 8 (w4a8 gate_up 20.27 -> 19.17 and 20.65 -> 19.46 us, w4a8fp8 20.94 ->
// 20.00 and 21.30 -> 20.27, MXFP4 20.99 -> 20.05 and 21.51 -> 20.41) and slower at M = 16
// (w4a8 +0.2, w4a8fp8 +4.4, MXFP4 +4.1): so a balanced grid goes under PDL up to M = 8.
inline constexpr std::int64_t kBalancedPdlMaxM = 8;
[[nodiscard]] constexpr bool pdl_allowed(const Config& c, std::int64_t m) {
  return !is_balanced(c) || m <= kBalancedPdlMaxM;
}
// The R4_SK a config is compiled with (kernels/splitk.h). 0 for SK 2, 4 and 8 on NVIDIA: split-K
// read from the launch's gridDim.y, so those three SKs of a config share one compiled body (the
// cold sweep compiled 2,017 configs of 828 such bodies: docs/PERF.md "Session 27"). The
// configured SK otherwise: 1, 16 (its reduction's 64 registers stay out of the others' body),
// stream-K, and AMD, whose kernels this project compiles offline but cannot run, so a shared body
// there could not be verified.
// kSplitKAtLaunch off compiles every SK apart, as before.
inline constexpr bool kSplitKAtLaunch = true;
[[nodiscard]] constexpr int sk_define(const Config& c, bool nvidia) {
  return kSplitKAtLaunch && nvidia && (c.sk == 2 || c.sk == 4 || c.sk == 8) ? 0 : c.sk;
}
// R4G_SCHUNK: the one-byte kinds outside stream-K copy ST groups' scales at once into a ring of
// 2 ST entries per tile; the others copy each stage's 64 B with the stage. On since session 31
// (session 26's A/B, 0.4-2.9% faster; session 31's sweep with them, 0 failed checks: docs/PERF.md);
// a build with -DR4_SM90A_SCALE_CHUNKS=OFF (CMakeLists.txt) turns them off for an A/B. The host
// sizes shared memory by this constant, and the sm90a compiles then define R4G_SCHUNK_ON=1
// (kernels/family.cpp compile_request, r4d's TUs).
#ifndef R4_SM90A_SCALE_CHUNKS
#define R4_SM90A_SCALE_CHUNKS 1
#endif
inline constexpr bool kSm90aScaleChunks = R4_SM90A_SCALE_CHUNKS != 0;
[[nodiscard]] constexpr bool sm90a_scale_chunks(KernelId id, const Config& c) {
  return kSm90aScaleChunks && id != KernelId::gemm_w4a16_nt && !is_stream_k(c);
}
[[nodiscard]] constexpr std::int64_t sm90a_stage_bytes(KernelId id, const Config& c) {
  return static_cast<std::int64_t>(c.wv) * c.npw * (sm90a_scale_chunks(id, c) ? 1024 : 1088) +
         sm90a_act_bytes(id, c);
}
[[nodiscard]] constexpr std::int64_t sm90a_scale_ring_bytes(KernelId id, const Config& c) {
  return sm90a_scale_chunks(id, c) ? 2LL * c.st * c.wv * c.npw * 64 : 0;
}
[[nodiscard]] constexpr std::int64_t sm90a_shared_bytes(KernelId id, const Config& c) {
  return 1024 + static_cast<std::int64_t>(c.st) * sm90a_stage_bytes(id, c) +
         sm90a_scale_ring_bytes(id, c);
}
// What an SM's shared memory is, for sizing a launch's dynamic shared memory (the device's
// multiprocessors, its shared memory per multiprocessor and what each block reserves of it: 132,
// 233,472 and 1,024 on the H100 SXM / H200). All 0 where unknown.
struct SmShared {
  std::int64_t sms = 0, per_sm = 0, reserved = 0;
};
// The dynamic shared memory an sm90a launch of `blocks` CTAs asks for (kernels/family.cpp, r4d):
// its ring's `need`, raised so that an SM holds no more of its CTAs than one wave of the grid
// needs (ceil(blocks / sms)); the kernel uses `need` whatever it is given. Why: once the staging
// ring went (branch bulka), o_proj's rings shrank below half an SM (w4a8 (4, 1, 2, 2, 1, 8):
// 123,904 -> 107,520 bytes) and two CTAs fitted on one SM; under PDL the GEMM, launched while
// quant_act still runs, then ran slower than in plain stream order (quant_act + GEMM, o_proj
// M = 64, H100: 11.2 us plain, 13.2 under PDL), and with every launch raised to 116,736 bytes
// (one CTA per SM) 10.2 under PDL; in the race 13.5 -> 10.5 (w4a8) and 15.8 -> 11.0 (w4a8fp8)
// (docs/PERF.md, session 34; docs/device-logs/2026-12-06-session34-b9033ee-h100-call1-solo.log).
// Raising it for every grid cost gate_up M = 1's 272 CTAs two more waves (21.7 -> 31.0 us): hence
// per grid. Unchanged where SM is unknown, or where `need` alone already allows no more.
[[nodiscard]] constexpr std::int64_t sm90a_wave_shared_bytes(std::int64_t need, std::int64_t blocks,
                                                             const SmShared& sm) {
  if (sm.sms <= 0 || sm.per_sm <= 0 || blocks <= 0) return need;
  const std::int64_t per = (blocks + sm.sms - 1) / sm.sms;  // CTAs an SM holds in one wave
  // The least bytes at which per + 1 CTAs exceed the SM: (per + 1) * (bytes + reserved) > per_sm.
  // A kernel's static shared memory (the sm90a epilogue's 1 KiB flag) only adds to each CTA's
  // share: per + 1 stay excluded, and one wave still fits up to 14 CTAs per SM (the 2,048 threads
  // of an SM allow these 256-thread or larger blocks 8).
  const std::int64_t pad = sm.per_sm / (per + 1) - sm.reserved + 1;
  return pad > need && per * (pad + sm.reserved) <= sm.per_sm ? pad : need;
}
// The most sm90a_wave_shared_bytes asks of any launch (one CTA per SM): what r4d opts every sm90a
// kernel into besides its ring's need.
[[nodiscard]] constexpr std::int64_t sm90a_wave_shared_ceiling(const SmShared& sm) {
  return sm90a_wave_shared_bytes(0, 1, sm);
}
// A stream-K launch's geometry for an N x K shape: its N tiles, units (tile, 128-K group), blocks,
// the workspace slots per tile (a block runs at least floor(units / blocks) units, so at most
// ceil(G / that) + 1 blocks share a tile: kernels/nv/gemm_w4_sm90a.h r4g_sk_slots, which traps
// past it) and the f32 bytes of one tile's partial (16 * MB rows by WV * NPW * 16).
struct StreamK {
  std::int64_t tiles = 0, units = 0, blocks = 0, slots = 0, tile_bytes = 0;
};
[[nodiscard]] constexpr StreamK stream_k(const Config& c, std::int64_t n, std::int64_t k) {
  StreamK g;
  const std::int64_t per = static_cast<std::int64_t>(c.wv) * c.npw, groups = k / kGroup;
  g.tiles = (n / 16 + per - 1) / per;
  g.units = g.tiles * groups;
  g.blocks = g.units < c.sk ? g.units : c.sk;
  const std::int64_t least = g.blocks > 0 && g.units / g.blocks > 0 ? g.units / g.blocks : 1;
  g.slots = (groups + least - 1) / least + 1;
  g.tile_bytes = 16LL * c.mb * per * 16 * 4;
  return g;
}
// Mirrors R4_ROW_BYTES_S / R4_SMEM_S / R4_STAGES in kernels/gemm_common.h.
[[nodiscard]] constexpr std::int64_t staged_row_bytes(KernelId id, int stages) {
  return id == KernelId::gemm_w4a16_nt ? stages * 128 + 16 : stages * 64 + 64;
}
[[nodiscard]] constexpr std::int64_t shared_bytes(KernelId id, const Config& c, int stages,
                                                  std::int64_t rows) {
  return static_cast<std::int64_t>(c.wv) * stages * c.npw * 576 +
         2 * rows * staged_row_bytes(id, stages);
}
// Pipeline stages the kernel compiles with (0: the config does not fit in shared memory).
[[nodiscard]] constexpr int pipeline_stages(KernelId id, const Config& c) {
  for (int s : {8, 4, 2})
    if (shared_bytes(id, c, s, c.mb * 16) <= kSharedLimit) return s;
  return 0;
}

namespace detail {
constexpr bool one_of(int v, std::initializer_list<int> set) {
  for (int s : set)
    if (s == v) return true;
  return false;
}
}  // namespace detail

// The sm90a generation's arch-only ranges (kernels/nv/gemm_w4_sm90a.h).
[[nodiscard]] constexpr bool is_valid_sm90a(KernelId id, const Config& c, const gpu::Arch& a) {
  if (is_quant(id)) return false;
  if (a.vendor != gpu::Vendor::nvidia || a.major != 9) return false;  // gpu::has_wgmma
  if (!detail::one_of(c.wv, {4, 8}) ||
      !detail::one_of(c.sk, {1, 2, 4, 8, 16, kSm90aStreamK, kSm90aBalanced}) ||
      !detail::one_of(c.mb, {1, 2, 3, 4}) || !detail::one_of(c.npw, {1, 2}) ||
      !detail::one_of(c.nt, {0, 1}) || !detail::one_of(c.st, {4, 6, 8}))
    return false;
  // Stream-K where it pays (the M >= 32 bands of the large shapes, whose winners are two consumer
  // warpgroups at ring depth 4; session 25), to keep the sweep's compile count. Its segment ends
  // run inside the main loop, so MB 4 with NPW 2 (128 accumulator registers) spills there (NVRTC
  // 13.0: 76 B int8, 92 B e4m3); MB 3 with NPW 2 and every NPW 1 tuple do not.
  // MXFP4's MB 4 tuples fit one consumer warpgroup only (below), so its stream-K has WV 4 MB 4
  // too (nvcc 13.0: 205 registers, no spill).
  const bool mx_sk4 = id == KernelId::gemm_mxfp4a8fp8_nt && c.wv == 4 && c.mb == 4 && c.npw == 1;
  if (is_stream_k(c) && ((c.wv != 8 && !mx_sk4) || c.st != 4 || (c.npw == 2 && c.mb == 4)))
    return false;
  // The balanced grid with one consumer warpgroup of 64-row tiles only: with 128-row tiles
  // (WV 8 or NPW 2; gate_up 136 of them, 132 whole and 4 split 33 ways) it ran slower than SK 1 or
  // stream-K (session 38 call 1, H100, GEMM alone: w4a8 (8, 255, 1, 1, 1, 4) gate_up M = 16 24.92
  // us against SK 1's 24.29; w4a8fp8 (8, 255, 2, 1, 1, 4) M = 32 32.06 against stream-K's 27.23),
  // and the dflash sweep chose it there nowhere.
  if (is_balanced(c) && (c.wv != 4 || c.npw != 1)) return false;
  // MB 3 (wgmma N = 48): M = 33..48 in one block, where MB 2 took two blocks (the second half
  // idle) and MB 4 is not valid; at ring depth 4 only, where the M >= 32 winners of the 8-bit
  // kinds are (H200 sweeps, sessions 14-17), to keep the sweep's compile count (+110 for dflash).
  if (c.mb == 3 && c.st != 4) return false;
  if (id == KernelId::gemm_w4a16_nt && c.wv == 8 && c.npw == 2 && c.mb >= 3)
    return false;  // 192 (MB 4) live registers over the 168 of 384 threads: spills (MB 3: 12 B)
  // MXFP4 (R4G_PSTEP): four f32 partials per accumulator, one per k32 step, so 5 x 8 MB x NPW
  // accumulator registers per consumer thread. nvcc 13.0 -Xptxas -v, sm_90a: under the 168
  // registers of 384 threads (WV 8) MB x NPW = 3 takes 153-166 and 4 spilled 28-56 B, so there
  // the stage's wgmmas go in two halves with two partials (R4G_PHALF: 123-152 registers); under
  // the 255 of 256 threads (WV 4) 4 takes 187-203, and 8 (MB 4, NPW 2) serialises the wgmmas
  // (C7511).
  if (id == KernelId::gemm_mxfp4a8fp8_nt && c.mb * c.npw > 4) return false;
  if ((id == KernelId::gemm_w4a8_nt || id == KernelId::gemm_w4a8fp8_nt) && c.wv == 8 &&
      c.npw == 2 && c.mb == 4 && c.st == 6)
    return false;  // at the 168-register cap, NVRTC 13.0 spills 4 B at ST 6 (not at 4 or 8): CI
  return sm90a_shared_bytes(id, c) <= kSm90aSharedLimit;
}

// The ldg generation's arch-only ranges (kernels/nv/gemm_w4_ldg.h): NVIDIA sm_80+, compiled for
// the arch as named. A warp holds two batches of ST x NPW weight fragments (4 registers each, plus
// 2 scale dwords) and ST x 2MB activation fragments (4 registers for int8, 8 for 16-bit), and
// NPW x MB x 16 accumulators and partials. That estimate against what ptxas allots (NVRTC 13.0,
// sm_90, 2026-12-01, WV 4): every tuple estimated at <= 208 compiles without spills (w4a8
// (MB, NPW, ST) = (2, 1, 4): 208 -> 254 registers; w4a16 (1, 1, 4): 192 -> 239), every one at
// >= 224 spills (w4a16 (1, 4, 2): 224 -> 12 B; w4a8 (1, 1, 8): 240 -> 36 B).
inline constexpr int kLdgRegisterBudget = 208;
[[nodiscard]] constexpr bool is_valid_ldg(KernelId id, const Config& c, const gpu::Arch& a) {
  if (is_quant(id)) return false;
  if (a.vendor != gpu::Vendor::nvidia || a.major < 8) return false;
  if (is_fp8_act(id) && !has_fp8_mma(a)) return false;
  if (!detail::one_of(c.wv, {2, 4, 8}) || !detail::one_of(c.sk, {1, 2, 4, 8, 16}) ||
      !detail::one_of(c.mb, {1, 2}) || !detail::one_of(c.npw, {1, 2, 4}) ||
      !detail::one_of(c.nt, {0, 1}) || !detail::one_of(c.st, {2, 4, 8}))
    return false;
  const int act_regs = id == KernelId::gemm_w4a16_nt ? 8 : 4;
  const int batch_regs = c.st * (c.npw * 6 + 2 * c.mb * act_regs);
  return 2 * batch_regs + c.npw * c.mb * 16 <= kLdgRegisterBudget;
}

// Arch-only part: the ranges and the register budget (what CI compiles).
// The fp8-activation GEMMs: gemm_w4a8fp8_nt in the ldg and sm90a generations (wgmma .e4m3 with
// the int8 path's shapes: same bytes per stage, f32 partials in place of int32 ones);
// gemm_mxfp4a8fp8_nt in both too, its sm90a configs with a partial and a promotion per wgmma
// k-step (its per-32-K exponents) and fewer accumulator tiles (is_valid_sm90a). Neither has a
// mma.sync-ring (gen 0) body on NVIDIA. On AMD, gen 0 of
// gemm_w4a8fp8_nt is the gfx12 fp8 WMMA body, with the ranges of gemm_w4a8_nt's WMMA body (same
// loop, same accumulator count: f32 partials in place of int32 ones); gfx11 and gfx942 have none
// (kernels/amd/config_amd.hpp has_fp8_wmma_path says why), nor has gemm_mxfp4a8fp8_nt.
[[nodiscard]] constexpr bool is_valid(KernelId id, const Config& c, const gpu::Arch& a) {
  if (c.gen == kGenLdg) return is_valid_ldg(id, c, a);
  if (c.gen == kGenSm90a) return is_valid_sm90a(id, c, a);
  if (id == KernelId::gemm_mxfp4a8fp8_nt) return false;
  if (is_fp8_act(id) && !amd::has_fp8_wmma_path(a)) return false;
  if (c.gen != kGenMmaSync || c.st != 0) return false;
  if (is_quant(id)) return c == Config{};
  const bool nv_mma = a.vendor == gpu::Vendor::nvidia && a.major >= 8;
  if (!nv_mma && !(a.vendor == gpu::Vendor::amd && amd::is_valid_amd(c.wv, a))) return false;
  if (!detail::one_of(c.wv, {1, 2, 4, 8}) || !detail::one_of(c.sk, {1, 2, 4, 8, 16}) ||
      !detail::one_of(c.mb, {1, 2, 4}) || !detail::one_of(c.npw, {1, 2, 4}) ||
      !detail::one_of(c.nt, {0, 1}))
    return false;
  return c.npw * c.mb <= 8 && pipeline_stages(id, c) > 0;
}

// Cluster split-K (kernels/splitk.h): whether a launch of this config on this arch may be a
// thread-block cluster of its SK splits (cluster (1, SK, 1)), which then reduce through each
// other's shared memory instead of the workspace: the ldg generation with SK > 1 on NVIDIA sm_90+
// (it is compiled for the arch as named, so its cluster code exists exactly there; SK 16 is a
// non-portable cluster size, which the launch opts into). The launcher still drops the cluster
// when the grid's clusters do not all fit on the device at once (kernels/family.hpp
// cluster_launch; r4d the same): clusters then left SMs idle and took a second wave (H200,
// docs/PERF.md "Session 17": qkv ldg (2, 8, 1, 1, 1, 2) M = 16 7.31 -> 10.45 us). Not the sm90a
// generation: one block per SM, its clusters of 16 took a second wave, under PDL waited for whole
// free GPCs (hidden_proj w4a8 (4, 16, 1, 1, 0, 8) pair 5.70 -> 7.25 us), and gained nothing
// elsewhere (-0.7 .. +0.7 us). Not the fp8-activation GEMMs either: in the sweep (the races time
// them after quant_act_fp8 under PDL) the MXFP4 winners of the small shapes ran up to 8.5% slower
// with it (hidden_proj (4, 16, 1, 1, 1, 2) M = 16: pair under PDL 6.81 -> 7.32 us, plain pair
// 6.99 -> 6.63), while the int8 pairs under PDL gained (qkv (4, 8, 1, 1, 0, 2) 8.57 -> 8.22);
// not diagnosed, so the fp8 kinds keep the workspace path (and their code, which has no cluster
// path: kernels/nv/gemm_w4_ldg.h).
[[nodiscard]] constexpr bool splitk_cluster(KernelId id, const Config& c, const gpu::Arch& a) {
  return !is_quant(id) && !is_fp8_act(id) && c.gen == kGenLdg && c.sk > 1 &&
         a.vendor == gpu::Vendor::nvidia && a.major >= 9;
}
// The cluster path's f32 tile per block: 16 * MB rows by WV * NPW 16-row tiles, each row padded
// by 4 floats (kernels/splitk.h R4_SKC_STRIDE), as dynamic shared memory.
[[nodiscard]] constexpr std::int64_t splitk_cluster_tile_bytes(const Config& c) {
  return static_cast<std::int64_t>(16 * c.mb) * (16 * c.wv * c.npw + 4) * 4;
}

// The full predicate: arch ranges plus the shape's own limits.
[[nodiscard]] constexpr bool is_valid(KernelId id, const Config& c, const gpu::Arch& a,
                                      const Shape& s) {
  if (!is_valid(id, c, a)) return false;
  if (s.m < 1 || s.m > kMaxM || s.k < kGroup || s.k % kGroup != 0 || s.n < 16 || s.n % 16 != 0)
    return false;
  if (is_quant(id)) return true;
  const std::int64_t mtiles = (s.m + 15) / 16;
  if (c.mb > mtiles) return false;            // a clamped duplicate (config_for clamps MB)
  if (c.wv * c.npw > s.n / 16) return false;  // whole warps would idle
  if (is_stream_k(c)) {
    if (c.mb != mtiles) return false;  // one M tile per block range (kernels/nv/gemm_w4_sm90a.h)
  } else if (is_balanced(c)) {
    // One M tile; more tiles than one wave and a remainder split at least twice (else it is SK 1).
    const auto b = balanced(c, s.n, s.k);
    if (c.mb != mtiles || b.whole == 0 || b.splits < 2) return false;
  } else if (c.sk > s.k / (c.gen == kGenSm90a ? kGroup : 64)) {
    return false;  // every split needs a 64-K block (gen 0) or a 128-K group (gen 1)
  }
  const std::int64_t xblocks = (s.n / 16 + c.wv * c.npw - 1) / (c.wv * c.npw);
  if (c.sk > 1 && xblocks * ((mtiles + c.mb - 1) / c.mb) > kSplitKCounters) return false;
  return true;
}

// Every config is_valid(id, c, arch) accepts, in a fixed order (WV, SK, MB, NPW, NT nested).
[[nodiscard]] std::vector<Config> config_space(KernelId id, const gpu::Arch& a);
// The subset also valid for the shape.
[[nodiscard]] std::vector<Config> config_space(KernelId id, const gpu::Arch& a, const Shape& s);

// "(WV, SK, MB, NPW, NT)" for gen 0; "sm90a(WV, SK, MB, NPW, NT, ST)" for gen 1.
[[nodiscard]] std::string to_string(const Config& c);
[[nodiscard]] std::string_view gen_name(int gen);  // "mma_sync", "sm90a"

}  // namespace r4::kernels
