// r4d internals shared by its sources (not installed): the compiled-kernel registry that CMake
// generates, the launch geometry of both kernel generations (kernels/family.cpp's, for NVIDIA's
// 32-lane warps; the test tests/r4d/geometry_test.cpp pins the two together), and the miss
// counters.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/config.hpp"
#include "r4d/pdl.hpp"
#include "r4d/table.hpp"

namespace r4d::detail {

using r4::kernels::KernelId;

// One kernel compiled ahead of time by nvcc from kernels/<name>.cu with the config's defines
// (kernels/r4d/cmake/R4dKernels.cmake writes one translation unit per entry; the sm90a
// generation's for sm_90a only).
struct CompiledKernel {
  KernelId id;
  Config config;           // {} for quant_act; gen/st name the generation
  bool a_bf16;             // gemm_w4a16_nt only: R4_A_BF16
  const void* (*entry)();  // returns the renamed __global__ function's host handle
  int r4_sk;               // the R4_SK its TU defines (kernels/config.hpp sk_define; 0 for quant)
};

// The generated registry (r4d_registry.cpp in the build tree).
[[nodiscard]] std::span<const CompiledKernel> compiled_kernels();

// The registry entry whose image tells which virtual architecture the kernels built for
// R4D_CUDA_ARCHITECTURES run from on a device (quant_act, or any mma_sync kernel: all compiled for
// the same arches; the sm90a kernels are compiled for sm_90a alone and load on a cc 9.0 device
// only), or null when the registry has none.
[[nodiscard]] inline const CompiledKernel* arch_probe_kernel() {
  for (const auto& e : compiled_kernels())
    if (e.config.gen == r4::kernels::kGenMmaSync) return &e;
  return nullptr;
}

[[nodiscard]] constexpr KernelId kernel_of(Dtype d) {
  switch (d) {
    case Dtype::w4a16:
      return KernelId::gemm_w4a16_nt;
    case Dtype::w4a8:
      return KernelId::gemm_w4a8_nt;
    case Dtype::w4a8fp8:
      return KernelId::gemm_w4a8fp8_nt;
    case Dtype::mxfp4a8fp8:
      return KernelId::gemm_mxfp4a8fp8_nt;
  }
  return KernelId::gemm_w4a16_nt;
}

[[nodiscard]] constexpr r4::kernels::Config to_kernels(const Config& c) {
  return {c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st};
}

[[nodiscard]] constexpr r4::gpu::Arch nvidia_arch(int major, int minor) {
  r4::gpu::Arch a;
  a.vendor = r4::gpu::Vendor::nvidia;
  a.major = major;
  a.minor = minor;
  return a;
}

// Whether a config is one the build's targets can run for the shape: a mma_sync or ldg config on
// both sm_80 and sm_90 (R4D_CUDA_ARCHITECTURES 80;90; is_valid answers the same for both), an sm90a
// config on sm_90 (compute capability 9.x; it is compiled for sm_90a). What config_for checks.
[[nodiscard]] constexpr bool valid_for_build(KernelId id, const Config& c,
                                             const r4::kernels::Shape& s) {
  const auto kc = to_kernels(c);
  if (c.gen == r4::kernels::kGenSm90a) return r4::kernels::is_valid(id, kc, nvidia_arch(9, 0), s);
  // The fp8-activation GEMMs are built for sm_89 and sm_90 (kernels/r4d/CMakeLists.txt r4d_fp8).
  const int lowest_minor = r4::kernels::is_fp8_act(id) ? 9 : 0;
  return r4::kernels::is_valid(id, kc, nvidia_arch(8, lowest_minor), s) &&
         r4::kernels::is_valid(id, kc, nvidia_arch(9, 0), s);
}

// kernels/family.cpp launch_dims for wave 32: grid x over N tiles, y over splits, z over M tiles
// (both generations). mma_sync: WV warps and the dynamic shared memory of the cp.async pipeline
// (kernels/config.hpp shared_bytes for the live rows). Launching without that shared memory makes
// the kernels write past their allocation: seen on the H200 on 2026-11-30 as
// CUDA_ERROR_ILLEGAL_ADDRESS from every r4d launch. sm90a: WV consumer warps plus a producer
// warpgroup (128 threads), and the barriers and ST-stage ring (kernels/config.hpp
// sm90a_shared_bytes, up to the 227 KiB opt-in; independent of the shape).
// `clusters`: the device runs kernel images with cluster code (cc 9.x and an image compiled for
// compute_90 or later: the condition of pdl_capable); then a config kernels/config.hpp
// splitk_cluster names may launch as a cluster of its SK splits (cluster_y = SK) with the cluster
// split-K tile as dynamic shared memory (cluster_shared, part of shared). The launch drops both
// when the grid's gx * gz clusters do not all fit on the device at once (launch.cpp, as
// kernels/family.cpp cluster_launch). A kernel launched without the cluster reduces through the
// workspace (kernels/splitk.h), so a mismatch costs time, never results.
struct Dims {
  unsigned gx, gy, gz, block, shared;
  unsigned cluster_y = 1;
  unsigned cluster_shared = 0;
};
[[nodiscard]] constexpr Dims gemm_dims(KernelId id, const Config& c, std::int64_t m, std::int64_t n,
                                       std::int64_t k, bool clusters) {
  const std::int64_t per_block = static_cast<std::int64_t>(c.wv) * c.npw;
  const std::int64_t mtiles = (m + 15) / 16;
  const auto kc = to_kernels(c);
  Dims d{static_cast<unsigned>((n / 16 + per_block - 1) / per_block), static_cast<unsigned>(c.sk),
         static_cast<unsigned>((mtiles + c.mb - 1) / c.mb), static_cast<unsigned>(c.wv * 32), 0};
  const bool cluster = clusters && r4::kernels::splitk_cluster(id, kc, nvidia_arch(9, 0));
  if (cluster) d.cluster_y = static_cast<unsigned>(c.sk);
  if (c.gen == r4::kernels::kGenSm90a) {
    d.block += 128;
    d.shared = static_cast<unsigned>(r4::kernels::sm90a_shared_bytes(id, kc));
    if (r4::kernels::is_stream_k(kc)) {  // a 1-D grid (kernels/config.hpp stream_k)
      d.gx = static_cast<unsigned>(r4::kernels::stream_k(kc, n, k).blocks);
      d.gy = d.gz = 1;
    }
    if (r4::kernels::is_balanced(kc)) {  // a 1-D grid (kernels/config.hpp balanced)
      d.gx = static_cast<unsigned>(r4::kernels::balanced(kc, n, k).blocks);
      d.gy = d.gz = 1;
    }
    return d;
  }
  if (c.gen == r4::kernels::kGenLdg) {  // registers only, but for the cluster split-K tile
    if (cluster)
      d.shared = d.cluster_shared =
          static_cast<unsigned>(r4::kernels::splitk_cluster_tile_bytes(kc));
    return d;
  }
  const std::int64_t rows = std::min<std::int64_t>(c.mb * 16, (m + 7) / 8 * 8);
  d.shared = static_cast<unsigned>(
      r4::kernels::shared_bytes(id, kc, r4::kernels::pipeline_stages(id, kc), rows));
  return d;
}
// The dynamic shared memory a compiled sm90a kernel opts into (cudaFuncSetAttribute
// MaxDynamicSharedMemorySize at registration): what every launch of it asks for.
[[nodiscard]] constexpr unsigned sm90a_opt_in_bytes(KernelId id, const Config& c) {
  return static_cast<unsigned>(r4::kernels::sm90a_shared_bytes(id, to_kernels(c)));
}
inline constexpr unsigned kQuantActThreads = 256;  // kernels/quant_act.cu R4_QA_THREADS

// kernels/family.cpp workspace_bytes: 0 when SK == 1, else the tile counters + SK*M*N f32, or
// for stream-K the counters + its slots x tiles partial tiles (kernels/config.hpp stream_k).
[[nodiscard]] constexpr std::size_t workspace_bytes(const Config& c, std::int64_t m, std::int64_t n,
                                                    std::int64_t k) {
  if (c.sk == 1) return 0;
  if (r4::kernels::is_stream_k(to_kernels(c))) {
    const auto g = r4::kernels::stream_k(to_kernels(c), n, k);
    return static_cast<std::size_t>(r4::kernels::kSplitKCounters) * 4 +
           static_cast<std::size_t>(g.slots * g.tiles * g.tile_bytes);
  }
  if (r4::kernels::is_balanced(to_kernels(c)))
    return static_cast<std::size_t>(r4::kernels::balanced(to_kernels(c), n, k).workspace);
  return static_cast<std::size_t>(r4::kernels::kSplitKCounters) * 4 +
         static_cast<std::size_t>(c.sk) * static_cast<std::size_t>(m * n) * 4;
}

// Programmatic dependent launch: whether launches on a device of compute capability major.minor
// can use it, given `ptx_version`, the virtual architecture the kernel image that device runs was
// compiled from (cudaFuncAttributes::ptxVersion, e.g. 90; 0 when unknown). PDL needs cc >= 9.0,
// and the kernels carry griddepcontrol only when compiled for compute_90 or later
// (kernels/prelude.h: r4_pdl_wait is a no-op below __CUDA_ARCH__ 900). A build for sm_80 alone
// runs on an H200 through its compute_80 PTX: no wait in the kernels, so no PDL.
[[nodiscard]] constexpr bool pdl_capable(int major, int minor, int ptx_version) {
  return major * 10 + minor >= 90 && ptx_version >= 90;
}

// What one launch does with option `p` on a device whose pdl_capable is `capable`.
enum class PdlUse { plain, pdl, refuse };
[[nodiscard]] constexpr PdlUse resolve_pdl(Pdl p, bool capable) {
  switch (p) {
    case Pdl::off:
      return PdlUse::plain;
    case Pdl::on:
      return capable ? PdlUse::pdl : PdlUse::refuse;
    case Pdl::automatic:
      break;
  }
  return capable ? PdlUse::pdl : PdlUse::plain;
}

// Counters behind r4d::stats().
enum class Counter {
  lookups,
  hits,
  unknown_shape,
  m_out_of_range,
  invalid_config,
  launches,
  refused,
  not_compiled,
  not_initialised,
  pdl_launches,
  pdl_unsupported,
  count_
};
void bump(Counter c);

// lookup() without its counting: r4d::gemm probes the w4a8 table first and, on a miss, takes the
// w4a16 one; a call is one lookup with one outcome, so the probe's miss is not counted (it was
// counted as a second unknown_shape before: the R4dLaunch GPU test saw 2 for 1 call once the
// H200 tables made w4a8 take over above M = 0).
[[nodiscard]] Lookup find(std::int64_t n, std::int64_t k, std::int64_t m, Table t, Dtype d);
// Counts one lookup's outcome as lookup() does.
Lookup count(Lookup l);

}  // namespace r4d::detail
