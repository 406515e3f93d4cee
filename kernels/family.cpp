#include "kernels/family.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "kernels/embedded_sources.hpp"
#include "kernels/floors.hpp"
#include "tuner/gpu/arch.hpp"

namespace r4::kernels {
namespace {

constexpr std::array<std::string_view, 6> kNames = {"gemm_w4a16_nt",      "gemm_w4a8_nt",
                                                    "quant_act",          "gemm_w4a8fp8_nt",
                                                    "gemm_mxfp4a8fp8_nt", "quant_act_fp8"};

std::string embedded_text(std::string_view path) {
  for (const auto& f : embedded_sources())
    if (f.path == path) return std::string(f.text);
  throw std::runtime_error("kernel source not embedded in this binary: " + std::string(path));
}

gpu::CompileRequest base_request(std::string_view file, const gpu::Arch& arch) {
  gpu::CompileRequest req;
  req.source = embedded_text(file);
  req.source_name = std::string(file.substr(file.rfind('/') + 1));
  req.arch = arch;
  for (const auto& f : embedded_sources()) req.headers.emplace_back(f.path, f.text);
  req.defines.push_back(fmt::format("R4_WAVE={}", gpu::wave_size(arch)));
  return req;
}

unsigned ceil_div(std::int64_t a, std::int64_t b) {
  return static_cast<unsigned>((a + b - 1) / b);
}

void launch_raw(gpu::Kernel& k, const LaunchDims& d, gpu::Stream& s, void** args,
                const gpu::LaunchOptions& opt) {
  gpu::LaunchOptions o = opt;
  o.cluster = {1, 1, 1};  // the geometry's, not the caller's (cluster_launch)
  unsigned shared = d.shared_bytes;
  if (d.wave_shared && k.device() != nullptr) {
    const gpu::DeviceInfo& dev = *k.device();
    shared = static_cast<unsigned>(
        sm90a_wave_shared_bytes(shared, static_cast<std::int64_t>(d.grid.x) * d.grid.y * d.grid.z,
                                SmShared{dev.multiprocessors, dev.shared_per_multiprocessor,
                                         dev.reserved_shared_per_block}));
  }
  if (cluster_launch(k, d))
    o.cluster = d.cluster;
  else
    shared -= d.cluster_shared;
  k.launch_with(d.grid, d.block, shared, s, args, o);
}

// The dynamic shared memory a launch needs: the warps' weight rings and two activation chunks of
// the live rows (rounded up to 8), kernels/gemm_common.h.
unsigned staged_shared_bytes(KernelId id, const Config& c, const Shape& s) {
  const std::int64_t rows = std::min<std::int64_t>(c.mb * 16, (s.m + 7) / 8 * 8);
  return static_cast<unsigned>(shared_bytes(id, c, pipeline_stages(id, c), rows));
}

}  // namespace

std::string_view name(KernelId id) {
  return kNames[static_cast<std::size_t>(id)];
}

std::optional<KernelId> parse_kernel(std::string_view n) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == n) return static_cast<KernelId>(i);
  return std::nullopt;
}

gpu::CompileRequest compile_request(KernelId id, const Config& c, const gpu::Arch& arch,
                                    const CompileOptions& opt) {
  if (!is_valid(id, c, arch))
    throw std::invalid_argument(
        fmt::format("{} config {} is not valid for {}", name(id), to_string(c), arch.name));
  // The sm90a generation is compiled for the arch-specific target (wgmma, setmaxnreg), which a
  // compute capability 9.0 device runs; everything else for the arch as named.
  auto req = base_request(fmt::format("kernels/{}.cu", name(id)),
                          c.gen == kGenSm90a ? gpu::Arch::from("sm_90a") : arch);
  if (!is_quant(id)) {
    if (c.gen == kGenSm90a || c.gen == kGenLdg) {
      req.defines.push_back(fmt::format("R4_GEN={}", c.gen));
      req.defines.push_back(fmt::format("R4_ST={}", c.st));
    }
    req.defines.push_back(fmt::format("R4_WV={}", c.wv));
    const int sk = sk_define(c, arch.vendor == gpu::Vendor::nvidia);
    req.defines.push_back(fmt::format("R4_SK={}", sk));
    // The body serves every SK that sk_define sends to it; the config's own is part of the
    // cache key (one `compiles` row per config, as its checks and timings reference it).
    if (sk != c.sk) req.launch_key = fmt::format("sk={}", c.sk);
    req.defines.push_back(fmt::format("R4_MB={}", c.mb));
    req.defines.push_back(fmt::format("R4_NPW={}", c.npw));
    req.defines.push_back(fmt::format("R4_NT={}", c.nt));
    if (id == KernelId::gemm_w4a16_nt)
      req.defines.push_back(fmt::format("R4_A_BF16={}", opt.a_bf16 ? 1 : 0));
    // The scale chunks, where the build turns them on (kernels/config.hpp kSm90aScaleChunks).
    if (c.gen == kGenSm90a && kSm90aScaleChunks) req.defines.emplace_back("R4G_SCHUNK_ON=1");
    if (opt.broken_scale) req.defines.emplace_back("R4_BROKEN_SCALE=1");
    if (opt.test_fault) req.defines.push_back(fmt::format("R4_TEST_FAULT={}", opt.test_fault));
  }
  return req;
}

LaunchDims launch_dims(KernelId id, const Config& c, const gpu::Arch& arch, const Shape& s) {
  LaunchDims d;
  if (is_quant(id)) {
    d.grid = {static_cast<unsigned>(s.m), 1, 1};
    d.block = {256, 1, 1};
    return d;
  }
  const auto wave = gpu::wave_size(arch);
  d.grid = {ceil_div(s.n / 16, c.wv * c.npw), static_cast<unsigned>(c.sk),
            ceil_div(ceil_div(s.m, 16), c.mb)};
  if (c.gen == kGenSm90a) {
    // kernels/nv/gemm_w4_sm90a.h: WV consumer warps + a producer warpgroup; the same grid.
    d.block = {static_cast<unsigned>(c.wv * wave + 128), 1, 1};
    d.shared_bytes = static_cast<unsigned>(sm90a_shared_bytes(id, c));
    d.wave_shared = true;  // raised per device at launch (launch_raw)
    if (is_stream_k(c)) d.grid = {static_cast<unsigned>(stream_k(c, s.n, s.k).blocks), 1, 1};
    if (is_balanced(c)) d.grid = {static_cast<unsigned>(balanced(c, s.n, s.k).blocks), 1, 1};
    return d;
  }
  d.block = {static_cast<unsigned>(c.wv * wave), 1, 1};
  if (c.gen != kGenLdg) {
    d.shared_bytes = staged_shared_bytes(id, c, s);
    return d;
  }
  // ldg: registers only, but for the cluster split-K tile
  if (splitk_cluster(id, c, arch)) {
    d.cluster = {1, static_cast<unsigned>(c.sk), 1};
    d.shared_bytes = d.cluster_shared = static_cast<unsigned>(splitk_cluster_tile_bytes(c));
  }
  return d;
}

bool cluster_launch(gpu::Kernel& k, const LaunchDims& d) {
  const unsigned per = d.cluster.x * d.cluster.y * d.cluster.z;
  if (per <= 1) return false;
  const auto clusters =
      static_cast<std::int64_t>(d.grid.x) * d.grid.y * d.grid.z / static_cast<std::int64_t>(per);
  return clusters <= k.max_active_clusters(d.block, d.shared_bytes, d.cluster);
}

std::size_t workspace_bytes(KernelId id, const Config& c, const Shape& s) {
  if (is_quant(id) || c.sk == 1) return 0;
  if (is_stream_k(c)) {  // counters, then slots x tiles f32 partial tiles (kernels/config.hpp)
    const auto g = stream_k(c, s.n, s.k);
    return static_cast<std::size_t>(kSplitKCounters) * 4 +
           static_cast<std::size_t>(g.slots * g.tiles * g.tile_bytes);
  }
  if (is_balanced(c)) return static_cast<std::size_t>(balanced(c, s.n, s.k).workspace);
  return static_cast<std::size_t>(kSplitKCounters) * 4 +
         static_cast<std::size_t>(c.sk) * static_cast<std::size_t>(s.m * s.n) * 4;
}

std::int64_t weight_bytes(std::int64_t n, std::int64_t k) {
  return n * k / 2 + n * k / kGroup * 4;
}

void launch_gemm_w4a16(gpu::Kernel& k, const Config& c, const gpu::Arch& arch, const Shape& s,
                       gpu::DevicePtr a, const W4Weights& w, gpu::DevicePtr out,
                       gpu::DevicePtr workspace, gpu::Stream& stream,
                       const gpu::LaunchOptions& opt) {
  int m = static_cast<int>(s.m), n = static_cast<int>(s.n), kk = static_cast<int>(s.k);
  gpu::DevicePtr wq = w.wq, wsz = w.wsz;
  void* args[] = {&a, &wq, &wsz, &out, &workspace, &m, &n, &kk};
  launch_raw(k, launch_dims(KernelId::gemm_w4a16_nt, c, arch, s), stream, args, opt);
}

void launch_gemm_a8(KernelId id, gpu::Kernel& k, const Config& c, const gpu::Arch& arch,
                    const Shape& s, gpu::DevicePtr aq, gpu::DevicePtr sa, const W4Weights& w,
                    gpu::DevicePtr out, gpu::DevicePtr workspace, gpu::Stream& stream,
                    const gpu::LaunchOptions& opt) {
  if (id != KernelId::gemm_w4a8_nt && !is_fp8_act(id))
    throw std::invalid_argument("launch_gemm_a8: not a one-byte-activation GEMM");
  int m = static_cast<int>(s.m), n = static_cast<int>(s.n), kk = static_cast<int>(s.k);
  gpu::DevicePtr wq = w.wq, wsz = w.wsz;
  void* args[] = {&aq, &sa, &wq, &wsz, &out, &workspace, &m, &n, &kk};
  launch_raw(k, launch_dims(id, c, arch, s), stream, args, opt);
}

void launch_gemm_w4a8(gpu::Kernel& k, const Config& c, const gpu::Arch& arch, const Shape& s,
                      gpu::DevicePtr aq, gpu::DevicePtr sa, const W4Weights& w, gpu::DevicePtr out,
                      gpu::DevicePtr workspace, gpu::Stream& stream,
                      const gpu::LaunchOptions& opt) {
  launch_gemm_a8(KernelId::gemm_w4a8_nt, k, c, arch, s, aq, sa, w, out, workspace, stream, opt);
}

void launch_quant_act_fp8(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                          gpu::DevicePtr sa, ActOrder order, gpu::Stream& stream,
                          const gpu::LaunchOptions& opt) {
  // One block of 256 threads per row (kernels/quant_act_fp8.cu), as quant_act.
  launch_quant_act(k, s, a, aq, sa, order, stream, opt);
}

gpu::LaunchOptions a8_gemm_options(const gpu::Arch& arch, const Config& c, std::int64_t m) {
  gpu::LaunchOptions o;
  o.pdl = gpu::has_pdl(arch) && pdl_allowed(c, m);
  return o;
}

void launch_quant_act(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                      gpu::DevicePtr sa, ActOrder order, gpu::Stream& stream,
                      const gpu::LaunchOptions& opt) {
  int m = static_cast<int>(s.m), kk = static_cast<int>(s.k), ord = static_cast<int>(order);
  void* args[] = {&a, &aq, &sa, &m, &kk, &ord};
  gpu::Arch any;
  launch_raw(k, launch_dims(KernelId::quant_act, Config{}, any, s), stream, args, opt);
}

gpu::CompileRequest reference_compile_request(const gpu::Arch& arch) {
  return base_request("kernels/reference_gpu.cu", arch);
}

std::span<const KernelId> all_kernels() {
  static const auto ids = [] {
    std::array<KernelId, kNames.size()> a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<KernelId>(i);
    return a;
  }();
  return ids;
}

std::vector<CompileOptions> compile_variants(KernelId id) {
  std::vector<CompileOptions> v{CompileOptions{}};
  if (id == KernelId::gemm_w4a16_nt) {
    CompileOptions bf16;
    bf16.a_bf16 = true;
    v.push_back(bf16);
  }
  return v;
}

gpu::CompileRequest quant_fp8_block_compile_request(const gpu::Arch& arch) {
  return base_request("kernels/quant_fp8_block.cu", arch);
}

void launch_quant_fp8_block(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                            gpu::DevicePtr scales, gpu::Stream& stream) {
  int m = static_cast<int>(s.m), kk = static_cast<int>(s.k);
  void* args[] = {&a, &aq, &scales, &m, &kk};
  k.launch({static_cast<unsigned>(s.k / kGroup), static_cast<unsigned>(s.m), 1}, {32, 1, 1}, 0,
           stream, args);
}

gpu::CompileRequest floor_compile_request(const gpu::Arch& arch) {
  return base_request("kernels/read_floor.cu", arch);
}

gpu::CompileRequest quant_act_fp8_compile_request(const gpu::Arch& arch) {
  return compile_request(KernelId::quant_act_fp8, Config{}, arch);
}

}  // namespace r4::kernels
