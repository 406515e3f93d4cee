// Launchers, the automatic gemm and the per-device workspace registry. The only r4d source that
// includes a CUDA header: r4d is the CUDA runtime's client by design (cudaLaunchKernel on
// kernels nvcc compiled ahead of time; cudaLaunchKernelExC with
// cudaLaunchAttributeProgrammaticStreamSerialization under PDL), unlike the tuner, which dlopens
// the driver (tuner/gpu/backend_cuda.cpp, cuLaunchKernelEx with the driver's equivalent).
//
// Both kernel generations launch the same way; the sm90a generation's kernels need their dynamic
// shared memory (up to 227 KiB) opted into once per device, which registration does
// (opt_in_sm90a), never a launch: a launch may be inside graph capture.
#include "r4d/launch.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "r4d/constants.hpp"

namespace r4d {
namespace {

using detail::Counter;
using detail::KernelId;

constexpr int kMaxDevices = 64;
constexpr std::size_t kAlign = 256;

constexpr std::size_t align_up(std::size_t v) {
  return (v + kAlign - 1) / kAlign * kAlign;
}

// What init()/register_workspace() recorded for one device. Written under g_mutex before
// `ready` is released; launches read it after an acquire load of `ready`.
struct DeviceState {
  std::atomic<bool> ready{false};
  std::byte* base = nullptr;     // the whole registration
  std::size_t splitk_bytes = 0;  // [base, base + splitk_bytes): split-K counters + partials
  std::byte* scratch = nullptr;  // r4d::gemm's q (64*K int8) then sc (64 f32), or null
  std::size_t scratch_bytes = 0;
  int major = 0;
  int minor = 0;
  bool pdl = false;    // detail::pdl_capable(major, minor, the kernels' ptxVersion there)
  bool sm90a = false;  // every compiled sm90a kernel opted into its shared memory on the device
  r4::kernels::SmShared sm;  // the device's SMs and their shared memory (sm90a launches' bytes)
  bool clusters = false;     // cluster split-K launches (detail::gemm_dims; see cluster_capacity)
  // Per compiled kernel (its index in compiled_kernels()): how many of its cluster split-K
  // clusters the device holds at once; 0 where it has none.
  std::vector<int> max_clusters;
  bool owned = false;
};

std::array<DeviceState, kMaxDevices> g_devices;
std::mutex g_mutex;

std::size_t splitk_required() {
  std::size_t most = 0;
  for (Dtype d : {Dtype::w4a16, Dtype::w4a8, Dtype::w4a8fp8, Dtype::mxfp4a8fp8})
    for (const r4d_table_row& r : table(d)) {
      const Config c{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st};
      most =
          std::max(most, detail::workspace_bytes(c, std::min(r.m_limit, GEMM_W4_MAX_M), r.n, r.k));
    }
  return align_up(most);
}

std::size_t scratch_required() {
  std::int64_t kmax = 0;  // the one-byte activations of every table's widest K
  for (Dtype d : {Dtype::w4a8, Dtype::w4a8fp8, Dtype::mxfp4a8fp8})
    for (const r4d_table_row& r : table(d)) kmax = std::max<std::int64_t>(kmax, r.k);
  if (kmax == 0) return 0;
  return align_up(static_cast<std::size_t>(kmax) * GEMM_W4_MAX_M) + kAlign;
}

Status refuse(Status s) {
  detail::bump(Counter::refused);
  if (s == Status::invalid_config) detail::bump(Counter::invalid_config);
  if (s == Status::not_compiled) detail::bump(Counter::not_compiled);
  if (s == Status::not_initialised) detail::bump(Counter::not_initialised);
  if (s == Status::pdl_unsupported) detail::bump(Counter::pdl_unsupported);
  return s;
}

bool aligned(const void* p, std::size_t a) {
  return p != nullptr && reinterpret_cast<std::uintptr_t>(p) % a == 0;
}

// A device's state, or null when none is registered.
const DeviceState* registered(int device) {
  if (device < 0 || device >= kMaxDevices) return nullptr;
  const DeviceState& s = g_devices[static_cast<std::size_t>(device)];
  return s.ready.load(std::memory_order_acquire) ? &s : nullptr;
}

// The calling thread's device state, or null when none is registered.
const DeviceState* current_state() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return nullptr;
  return registered(dev);
}

const detail::CompiledKernel* find(KernelId id, const Config& c, bool a_bf16) {
  for (const auto& e : detail::compiled_kernels())
    if (e.id == id && e.config == c && e.a_bf16 == a_bf16) return &e;
  return nullptr;
}

// The virtual architecture the kernel image `device` runs was compiled from (90 for the sm_90
// image of the default 80;90 build on an H200; 80 where an sm_80-only build is JIT-compiled from
// its PTX), or 0 when the runtime cannot say. Every mma_sync kernel and quant_act are compiled for
// the same arches, so one (detail::arch_probe_kernel) answers for them; the sm90a kernels are
// sm_90a code, which carries griddepcontrol, and load on a cc 9.0 device only. May load the
// probe's module (lazy loading).
int kernels_ptx_version(int device) {
  const detail::CompiledKernel* probe = detail::arch_probe_kernel();
  int prev = 0;
  if (probe == nullptr || cudaGetDevice(&prev) != cudaSuccess) return 0;
  if (prev != device && cudaSetDevice(device) != cudaSuccess) return 0;
  cudaFuncAttributes fa{};
  const bool ok = cudaFuncGetAttributes(&fa, probe->entry()) == cudaSuccess;
  if (!ok) (void)cudaGetLastError();
  if (prev != device) (void)cudaSetDevice(prev);
  return ok ? fa.ptxVersion : 0;
}

// The device's SMs and their shared memory, for sizing sm90a launches as the tuner does
// (kernels/config.hpp sm90a_wave_shared_bytes); all 0, i.e. the rings' own bytes, on a failure.
r4::kernels::SmShared sm_shared(int device) {
  int sms = 0, per_sm = 0, reserved = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device) !=
          cudaSuccess) {
    (void)cudaGetLastError();
    return {};
  }
  return {sms, per_sm, reserved};
}

// Opts every compiled sm90a kernel into the dynamic shared memory its launches ask for
// (detail::sm90a_opt_in_bytes, or the most sm90a_wave_shared_bytes raises a launch to on the
// device; above the 48 KiB a kernel gets without asking) on `device`, a compute capability 9.0
// device. Called at registration, outside any graph capture: the call
// loads the kernel's module (lazy loading) and the CUDA documentation asks for attribute changes
// on the initialisation path, not at launch. True when every one succeeded (or there are none);
// false leaves the generation unusable on the device (its launches refuse, not_compiled).
bool opt_in_sm90a(int device, const r4::kernels::SmShared& sm) {
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return false;
  if (prev != device && cudaSetDevice(device) != cudaSuccess) return false;
  bool ok = true;
  for (const auto& e : detail::compiled_kernels()) {
    // Every kernel, quantisers included, asks for the largest shared-memory carveout, as the
    // tuner's CUDA backend does (kernels/config.hpp pdl_allowed, docs/PERF.md "Session 44"): an SM
    // that ran a kernel at a smaller one took no block of a balanced GEMM launched under PDL beside
    // it. A hint: a refusal changes nothing else.
    if (cudaFuncSetAttribute(e.entry(), cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) != cudaSuccess)
      (void)cudaGetLastError();
    if (e.config.gen != r4::kernels::kGenSm90a) continue;
    const unsigned bytes =
        std::max(detail::sm90a_opt_in_bytes(e.id, e.config),
                 static_cast<unsigned>(r4::kernels::sm90a_wave_shared_ceiling(sm)));
    if (cudaFuncSetAttribute(e.entry(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)) != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky; leave no error behind for the caller
      ok = false;
    }
  }
  if (prev != device) (void)cudaSetDevice(prev);
  return ok;
}

// For every compiled kernel with a cluster split-K launch (kernels/config.hpp splitk_cluster), how
// many of its clusters `device` holds at once (cudaOccupancyMaxActiveClusters at the launch's
// block, tile and cluster shape; SK 16 first opts into that non-portable size), at registration
// as opt_in_sm90a; 0 for the others. Empty when a call failed: cluster launches then stay off on
// the device, and its kernels reduce through the workspace (kernels/splitk.h), as before.
std::vector<int> cluster_capacity(int device) {
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess) return {};
  if (prev != device && cudaSetDevice(device) != cudaSuccess) return {};
  const auto kernels = detail::compiled_kernels();
  std::vector<int> fit(kernels.size(), 0);
  bool ok = true;
  for (std::size_t i = 0; i < kernels.size() && ok; ++i) {
    const auto& e = kernels[i];
    const auto kc = detail::to_kernels(e.config);
    if (!r4::kernels::splitk_cluster(e.id, kc, detail::nvidia_arch(9, 0))) continue;
    if (e.config.sk > 8 &&
        cudaFuncSetAttribute(e.entry(), cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
            cudaSuccess) {
      ok = false;
      break;
    }
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = 1;
    attr.val.clusterDim.y = static_cast<unsigned>(e.config.sk);
    attr.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(1, static_cast<unsigned>(e.config.sk), 1);  // one cluster
    cfg.blockDim = dim3(static_cast<unsigned>(e.config.wv * 32));
    cfg.dynamicSmemBytes = static_cast<std::size_t>(r4::kernels::splitk_cluster_tile_bytes(kc));
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int n = 0;
    if (cudaOccupancyMaxActiveClusters(&n, e.entry(), &cfg) != cudaSuccess) ok = false;
    fit[i] = n;
  }
  if (!ok) (void)cudaGetLastError();  // not sticky; leave no error behind for the caller
  if (prev != device) (void)cudaSetDevice(prev);
  return ok ? fit : std::vector<int>{};
}

// Validates (state, PDL option, config, shape, build) and resolves the kernel; on success fills
// `k`/`st`/`use_pdl`.
Status prepare(KernelId id, const Config& c, bool a_bf16, int M, int K, int N, Pdl pdl,
               const detail::CompiledKernel*& k, const DeviceState*& st, bool& use_pdl) {
  if (detail::compiled_kernels().empty()) return refuse(Status::no_kernels);
  st = current_state();
  if (st == nullptr) return refuse(Status::not_initialised);
  const detail::PdlUse use = detail::resolve_pdl(pdl, st->pdl);
  if (use == detail::PdlUse::refuse) return refuse(Status::pdl_unsupported);
  // A balanced grid above M = 8 launches plainly even under Pdl::on (kernels/config.hpp
  // pdl_allowed): its griddepcontrol.wait is then a no-op, and stream order alone orders its reads.
  use_pdl = use == detail::PdlUse::pdl && r4::kernels::pdl_allowed(detail::to_kernels(c), M);
  const r4::kernels::Shape s{N, K, M};
  if (!r4::kernels::is_valid(id, detail::to_kernels(c), detail::nvidia_arch(st->major, st->minor),
                             s))
    return refuse(Status::invalid_config);
  k = find(id, c, a_bf16);
  if (k == nullptr || (c.gen == r4::kernels::kGenSm90a && !st->sm90a))
    return refuse(Status::not_compiled);
  if (!r4::kernels::is_quant(id) && detail::workspace_bytes(c, M, N, K) > st->splitk_bytes)
    return refuse(Status::workspace_too_small);
  return Status::ok;
}

// Plain: cudaLaunchKernel, as before PDL. PDL and/or a cluster: the same launch through
// cudaLaunchKernelExC with programmatic stream serialization allowed (captured into a graph as a
// programmatic edge) and/or the cluster dimension (1, cluster_y, 1). An sm90a launch asks for its
// ring's bytes raised for the device (kernels/config.hpp sm90a_wave_shared_bytes).
Status enqueue(const detail::CompiledKernel& k, const DeviceState& st, detail::Dims d, void** args,
               stream_t stream, bool use_pdl) {
  if (k.config.gen == r4::kernels::kGenSm90a)  // as kernels/family.cpp launch_raw
    d.shared = static_cast<unsigned>(r4::kernels::sm90a_wave_shared_bytes(
        d.shared, static_cast<std::int64_t>(d.gx) * d.gy * d.gz, st.sm));
  if (d.cluster_y > 1) {
    // A cluster launch only where the device holds all of the grid's clusters at once, as
    // kernels/family.cpp cluster_launch decides for the tuner.
    const auto at = static_cast<std::size_t>(&k - detail::compiled_kernels().data());
    const int fit = at < st.max_clusters.size() ? st.max_clusters[at] : 0;
    if (static_cast<std::int64_t>(d.gx) * d.gz > fit) {
      d.cluster_y = 1;
      d.shared -= d.cluster_shared;
    }
  }
  if (!use_pdl && d.cluster_y == 1) {
    if (cudaLaunchKernel(k.entry(), dim3(d.gx, d.gy, d.gz), dim3(d.block), args, d.shared,
                         stream) != cudaSuccess)
      return refuse(Status::launch_failed);
  } else {
    cudaLaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (use_pdl) {
      attrs[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attrs[n].val.programmaticStreamSerializationAllowed = 1;
      ++n;
    }
    if (d.cluster_y > 1) {
      attrs[n].id = cudaLaunchAttributeClusterDimension;
      attrs[n].val.clusterDim.x = 1;
      attrs[n].val.clusterDim.y = d.cluster_y;
      attrs[n].val.clusterDim.z = 1;
      ++n;
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(d.gx, d.gy, d.gz);
    cfg.blockDim = dim3(d.block);
    cfg.dynamicSmemBytes = d.shared;
    cfg.stream = stream;
    cfg.attrs = attrs;
    cfg.numAttrs = n;
    if (cudaLaunchKernelExC(&cfg, k.entry(), args) != cudaSuccess)
      return refuse(Status::launch_failed);
    if (use_pdl) detail::bump(Counter::pdl_launches);
  }
  detail::bump(Counter::launches);
  return Status::ok;
}

Status launch_w4a16(bool a_bf16, const void* a, const void* wq, const void* wsz, void* c, int M,
                    int K, int N, const Config& cfg, stream_t stream, Pdl pdl) {
  const detail::CompiledKernel* k = nullptr;
  const DeviceState* st = nullptr;
  bool use_pdl = false;
  if (Status s = prepare(KernelId::gemm_w4a16_nt, cfg, a_bf16, M, K, N, pdl, k, st, use_pdl);
      s != Status::ok)
    return s;
  if (!aligned(a, 16) || !aligned(wq, 16) || !aligned(wsz, 4) || !aligned(c, 2))
    return refuse(Status::bad_argument);
  void* ws = st->base;
  void* args[] = {&a, &wq, &wsz, &c, &ws, &M, &N, &K};
  return enqueue(*k, *st, detail::gemm_dims(KernelId::gemm_w4a16_nt, cfg, M, N, K, st->clusters),
                 args, stream, use_pdl);
}

}  // namespace

std::size_t workspace_bytes_required() {
  return splitk_required() + scratch_required();
}

bool has_kernels() {
  return !detail::compiled_kernels().empty();
}

bool has_generation(int gen) {
  if (!has_kernels()) return false;
  if (gen == kGenMmaSync || gen == kGenLdg) return true;
  return gen == kGenSm90a && R4D_SM90A != 0;
}

bool pdl_supported(int device) {
  const DeviceState* s = registered(device);
  return s != nullptr && s->pdl;
}

bool uses_pdl(Pdl p, int device) {
  return detail::resolve_pdl(p, pdl_supported(device)) == detail::PdlUse::pdl;
}

std::vector<Config> compiled_configs(Dtype d) {
  std::vector<Config> out;
  for (const auto& e : detail::compiled_kernels())
    if (e.id == detail::kernel_of(d) && !e.a_bf16) out.push_back(e.config);
  return out;
}

Status register_workspace(int device, void* ptr, std::size_t bytes) {
  if (device < 0 || device >= kMaxDevices || ptr == nullptr || !aligned(ptr, kAlign))
    return Status::bad_argument;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return Status::launch_failed;
  const int ptx = kernels_ptx_version(device);
  // The sm90a generation needs compute capability 9.x (kernels/config.hpp is_valid_sm90a; its
  // sm_90a code loads on 9.0); elsewhere its launches refuse before this flag is read.
  const r4::kernels::SmShared sm = sm_shared(device);
  const bool sm90a = major == 9 && opt_in_sm90a(device, sm);
  // Cluster split-K needs what PDL needs (cc 9.x, images with sm_90 code).
  std::vector<int> max_clusters;
  if (detail::pdl_capable(major, minor, ptx)) max_clusters = cluster_capacity(device);
  std::lock_guard lock(g_mutex);
  DeviceState& s = g_devices[static_cast<std::size_t>(device)];
  if (s.ready.load(std::memory_order_acquire) && s.owned) return Status::bad_argument;
  s.ready.store(false, std::memory_order_release);
  s.base = static_cast<std::byte*>(ptr);
  const std::size_t want_splitk = splitk_required(), want_scratch = scratch_required();
  if (want_scratch > 0 && bytes >= want_splitk + want_scratch) {
    s.splitk_bytes = want_splitk;
    s.scratch = s.base + want_splitk;
    s.scratch_bytes = want_scratch;
  } else {
    s.splitk_bytes = bytes;
    s.scratch = nullptr;
    s.scratch_bytes = 0;
  }
  s.major = major;
  s.minor = minor;
  s.pdl = detail::pdl_capable(major, minor, ptx);
  s.sm90a = sm90a;
  s.sm = sm;
  s.clusters = !max_clusters.empty();
  s.max_clusters = std::move(max_clusters);
  s.owned = false;
  s.ready.store(true, std::memory_order_release);
  return Status::ok;
}

Status init(int device) {
  if (device < 0 || device >= kMaxDevices) return Status::bad_argument;
  {
    std::lock_guard lock(g_mutex);
    if (g_devices[static_cast<std::size_t>(device)].ready.load(std::memory_order_acquire))
      return Status::ok;
  }
  int prev = 0;
  if (cudaGetDevice(&prev) != cudaSuccess || cudaSetDevice(device) != cudaSuccess)
    return Status::launch_failed;
  const std::size_t bytes = std::max<std::size_t>(workspace_bytes_required(), kAlign);
  void* p = nullptr;
  Status st = Status::ok;
  if (cudaMalloc(&p, bytes) != cudaSuccess) st = Status::launch_failed;
  if (st == Status::ok &&
      (cudaMemset(p, 0, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess))
    st = Status::launch_failed;
  if (st == Status::ok) st = register_workspace(device, p, bytes);
  if (st == Status::ok) {
    std::lock_guard lock(g_mutex);
    g_devices[static_cast<std::size_t>(device)].owned = true;
  } else if (p != nullptr) {
    (void)cudaFree(p);
  }
  (void)cudaSetDevice(prev);
  return st;
}

Status ensure_initialised(stream_t stream) {
  if (current_state() != nullptr) return Status::ok;
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &cs) != cudaSuccess) return Status::launch_failed;
  if (cs != cudaStreamCaptureStatusNone) return refuse(Status::not_initialised);
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return Status::launch_failed;
  return init(dev);
}

void release(int device) {
  if (device < 0 || device >= kMaxDevices) return;
  std::lock_guard lock(g_mutex);
  DeviceState& s = g_devices[static_cast<std::size_t>(device)];
  if (!s.ready.load(std::memory_order_acquire)) return;
  s.ready.store(false, std::memory_order_release);
  if (s.owned) {
    int prev = 0;
    if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(device) == cudaSuccess) {
      (void)cudaFree(s.base);
      (void)cudaSetDevice(prev);
    }
  }
  s.base = s.scratch = nullptr;
  s.splitk_bytes = s.scratch_bytes = 0;
  s.pdl = false;
  s.sm90a = false;
  s.clusters = false;
  s.max_clusters.clear();
  s.owned = false;
}

Status gemm_w4a16_nt(const void* a, const void* wq, const void* wsz, void* c, int M, int K, int N,
                     const Config& cfg, stream_t stream, Pdl pdl) {
  return launch_w4a16(false, a, wq, wsz, c, M, K, N, cfg, stream, pdl);
}

Status gemm_w4a16_nt(const void* a, const void* wq, const void* wsz, void* c, int M, int K, int N,
                     int WV, int SK, int MB, int NPW, int NT, stream_t stream, Pdl pdl) {
  return launch_w4a16(false, a, wq, wsz, c, M, K, N, Config{WV, SK, MB, NPW, NT}, stream, pdl);
}

Status gemm_w4a16_nt_bf16(const void* a, const void* wq, const void* wsz, void* c, int M, int K,
                          int N, const Config& cfg, stream_t stream, Pdl pdl) {
  return launch_w4a16(true, a, wq, wsz, c, M, K, N, cfg, stream, pdl);
}

Status gemm_w4a16_nt_bf16(const void* a, const void* wq, const void* wsz, void* c, int M, int K,
                          int N, int WV, int SK, int MB, int NPW, int NT, stream_t stream,
                          Pdl pdl) {
  return launch_w4a16(true, a, wq, wsz, c, M, K, N, Config{WV, SK, MB, NPW, NT}, stream, pdl);
}

Status gemm_w4a8_nt(const void* q, const void* sc, const void* wq, const void* wsz, void* c, int M,
                    int K, int N, const Config& cfg, stream_t stream, Pdl pdl) {
  const detail::CompiledKernel* k = nullptr;
  const DeviceState* st = nullptr;
  bool use_pdl = false;
  if (Status s = prepare(KernelId::gemm_w4a8_nt, cfg, false, M, K, N, pdl, k, st, use_pdl);
      s != Status::ok)
    return s;
  if (!aligned(q, 16) || !aligned(sc, 4) || !aligned(wq, 16) || !aligned(wsz, 4) || !aligned(c, 2))
    return refuse(Status::bad_argument);
  void* ws = st->base;
  void* args[] = {&q, &sc, &wq, &wsz, &c, &ws, &M, &N, &K};
  return enqueue(*k, *st, detail::gemm_dims(KernelId::gemm_w4a8_nt, cfg, M, N, K, st->clusters),
                 args, stream, use_pdl);
}

Status gemm_w4a8_nt(const void* q, const void* sc, const void* wq, const void* wsz, void* c, int M,
                    int K, int N, int WV, int SK, int MB, int NPW, int NT, stream_t stream,
                    Pdl pdl) {
  return gemm_w4a8_nt(q, sc, wq, wsz, c, M, K, N, Config{WV, SK, MB, NPW, NT}, stream, pdl);
}

namespace {

// The fp8-activation GEMMs: the w4a8 launch with another kernel (same arguments).
Status launch_fp8(KernelId id, const void* q, const void* sc, const void* wq, const void* wsz,
                  void* c, int M, int K, int N, const Config& cfg, stream_t stream, Pdl pdl) {
  const detail::CompiledKernel* k = nullptr;
  const DeviceState* st = nullptr;
  bool use_pdl = false;
  if (Status s = prepare(id, cfg, false, M, K, N, pdl, k, st, use_pdl); s != Status::ok) return s;
  if (!aligned(q, 16) || !aligned(sc, 4) || !aligned(wq, 16) || !aligned(wsz, 4) || !aligned(c, 2))
    return refuse(Status::bad_argument);
  void* ws = st->base;
  void* args[] = {&q, &sc, &wq, &wsz, &c, &ws, &M, &N, &K};
  return enqueue(*k, *st, detail::gemm_dims(id, cfg, M, N, K, st->clusters), args, stream, use_pdl);
}

// quant_act / quant_act_fp8: one block per row, the same arguments.
Status launch_quant(KernelId id, const void* a, void* q, void* sc, int M, int K, ActOrder order,
                    stream_t stream, Pdl pdl) {
  const detail::CompiledKernel* k = nullptr;
  const DeviceState* st = nullptr;
  bool use_pdl = false;
  if (Status s = prepare(id, Config{}, false, M, K, 16, pdl, k, st, use_pdl); s != Status::ok)
    return s;
  if (!aligned(a, 16) || !aligned(q, 16) || !aligned(sc, 4)) return refuse(Status::bad_argument);
  if (order != ActOrder::natural && K % 128 != 0) return refuse(Status::bad_argument);
  if (order != ActOrder::natural && order != ActOrder::sm90a && order != ActOrder::sm90a_mx)
    return refuse(Status::bad_argument);
  int ord = static_cast<int>(order);
  void* args[] = {&a, &q, &sc, &M, &K, &ord};
  return enqueue(*k, *st, {static_cast<unsigned>(M), 1, 1, detail::kQuantActThreads, 0}, args,
                 stream, use_pdl);
}

}  // namespace

Status gemm_w4a8fp8_nt(const void* q, const void* sc, const void* wq, const void* wsz, void* c,
                       int M, int K, int N, const Config& cfg, stream_t stream, Pdl pdl) {
  return launch_fp8(KernelId::gemm_w4a8fp8_nt, q, sc, wq, wsz, c, M, K, N, cfg, stream, pdl);
}

Status gemm_mxfp4a8fp8_nt(const void* q, const void* sc, const void* wq, const void* wsz, void* c,
                          int M, int K, int N, const Config& cfg, stream_t stream, Pdl pdl) {
  return launch_fp8(KernelId::gemm_mxfp4a8fp8_nt, q, sc, wq, wsz, c, M, K, N, cfg, stream, pdl);
}

Status quant_act_fp8(const void* a, void* q, void* sc, int M, int K, stream_t stream, Pdl pdl) {
  return launch_quant(KernelId::quant_act_fp8, a, q, sc, M, K, ActOrder::natural, stream, pdl);
}

Status quant_act_fp8(const void* a, void* q, void* sc, int M, int K, ActOrder order,
                     stream_t stream, Pdl pdl) {
  return launch_quant(KernelId::quant_act_fp8, a, q, sc, M, K, order, stream, pdl);
}

bool dtype_supported(Dtype d, int device) {
  const DeviceState* s = registered(device);
  if (s == nullptr || !has_kernels()) return false;
  if (d == Dtype::w4a8fp8 || d == Dtype::mxfp4a8fp8)
    return s->major * 10 + s->minor >= 89 && !compiled_configs(d).empty();
  return true;
}

Status gemm(const void* a_bf16, const void* wq, const void* wsz, void* c, int M, int K, int N,
            Dtype d, stream_t stream, Pdl pdl) {
  if (d == Dtype::w4a16 || d == Dtype::w4a8) return gemm(a_bf16, wq, wsz, c, M, K, N, stream, pdl);
  const Lookup l = lookup(N, K, M, table(d), d);
  if (!l.config) return l.status;
  const DeviceState* st = current_state();
  if (st == nullptr) return refuse(Status::not_initialised);
  const std::size_t q_bytes = align_up(static_cast<std::size_t>(K) * GEMM_W4_MAX_M);
  if (st->scratch == nullptr || q_bytes + kAlign > st->scratch_bytes)
    return refuse(Status::workspace_too_small);
  void* q = st->scratch;
  void* sc = st->scratch + q_bytes;
  if (Status s = quant_act_fp8(a_bf16, q, sc, M, K, act_order(d, *l.config), stream, pdl);
      s != Status::ok)
    return s;
  return launch_fp8(detail::kernel_of(d), q, sc, wq, wsz, c, M, K, N, *l.config, stream, pdl);
}

Status quant_act(const void* a, void* q, void* sc, int M, int K, stream_t stream, Pdl pdl) {
  return launch_quant(KernelId::quant_act, a, q, sc, M, K, ActOrder::natural, stream, pdl);
}

Status quant_act(const void* a, void* q, void* sc, int M, int K, ActOrder order, stream_t stream,
                 Pdl pdl) {
  return launch_quant(KernelId::quant_act, a, q, sc, M, K, order, stream, pdl);
}

Status gemm(const void* a_bf16, const void* wq, const void* wsz, void* c, int M, int K, int N,
            stream_t stream, Pdl pdl) {
  if (M > a8_m() && !table(Dtype::w4a8).empty()) {
    // A probe: a miss here falls through to the w4a16 table, and only that lookup is counted.
    if (const auto cfg = detail::find(N, K, M, table(Dtype::w4a8), Dtype::w4a8).config) {
      detail::count(Lookup{cfg, Status::ok});
      const DeviceState* st = current_state();
      if (st == nullptr) return refuse(Status::not_initialised);
      const std::size_t q_bytes = align_up(static_cast<std::size_t>(K) * GEMM_W4_MAX_M);
      if (st->scratch == nullptr || q_bytes + kAlign > st->scratch_bytes)
        return refuse(Status::workspace_too_small);
      void* q = st->scratch;
      void* sc = st->scratch + q_bytes;
      // Under PDL the scratch is shared safely too: quant_act writes q/sc after its wait (the
      // previous kernel, which may be an earlier gemm's w4a8 GEMM reading them, has completed).
      if (Status s = quant_act(a_bf16, q, sc, M, K, act_order(Dtype::w4a8, *cfg), stream, pdl);
          s != Status::ok)
        return s;
      return gemm_w4a8_nt(q, sc, wq, wsz, c, M, K, N, *cfg, stream, pdl);
    }
  }
  const Lookup l = lookup(N, K, M, table(Dtype::w4a16), Dtype::w4a16);
  if (!l.config) return l.status;
  return gemm_w4a16_nt_bf16(a_bf16, wq, wsz, c, M, K, N, *l.config, stream, pdl);
}

}  // namespace r4d
