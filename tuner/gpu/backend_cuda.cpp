// CUDA backend: driver API + NVRTC, both loaded with dlopen (libcuda.so.1 comes with the driver,
// libnvrtc.so.13 with the toolkit). Vendor headers are used for types and signatures only.
#include <cuda.h>
#include <nvrtc.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "tuner/gpu/backend.hpp"
#include "tuner/gpu/dynlib.hpp"
#include "tuner/gpu/resource_report.hpp"

namespace r4::gpu {
namespace {

// The driver entry points we use. `_v2` names are the ones cuda.h maps the plain names to.
struct DriverApi {
  DynLib lib;
  decltype(&cuInit) init{};
  decltype(&cuDriverGetVersion) driver_version{};
  decltype(&cuDeviceGetCount) device_count{};
  decltype(&cuDeviceGet) device_get{};
  decltype(&cuDeviceGetName) device_name{};
  decltype(&cuDeviceGetAttribute) attribute{};
  decltype(&cuDeviceTotalMem) total_mem{};
  decltype(&cuDeviceGetPCIBusId) pci_bus_id{};
  decltype(&cuDevicePrimaryCtxRetain) ctx_retain{};
  decltype(&cuDevicePrimaryCtxRelease) ctx_release{};
  decltype(&cuCtxSetCurrent) ctx_set_current{};
  decltype(&cuCtxSynchronize) ctx_sync{};
  decltype(&cuMemAlloc) mem_alloc{};
  decltype(&cuMemFree) mem_free{};
  decltype(&cuMemcpyHtoDAsync) htod_async{};
  decltype(&cuMemcpyDtoH) dtoh{};
  decltype(&cuMemcpyDtoDAsync) dtod_async{};
  decltype(&cuMemsetD8Async) memset_async{};
  decltype(&cuModuleLoadData) module_load{};
  decltype(&cuModuleUnload) module_unload{};
  decltype(&cuModuleGetFunction) module_function{};
  decltype(&cuFuncGetAttribute) func_attribute{};
  decltype(&cuFuncSetAttribute) func_set_attribute{};
  decltype(&cuLaunchKernel) launch{};
  decltype(&cuLaunchKernelEx) launch_ex{};
  decltype(&cuOccupancyMaxActiveClusters) max_active_clusters{};
  decltype(&cuStreamCreate) stream_create{};
  decltype(&cuStreamDestroy) stream_destroy{};
  decltype(&cuStreamSynchronize) stream_sync{};
  decltype(&cuStreamBeginCapture) begin_capture{};
  decltype(&cuStreamEndCapture) end_capture{};
  decltype(&cuGraphInstantiateWithFlags) graph_instantiate{};
  decltype(&cuGraphLaunch) graph_launch{};
  decltype(&cuGraphUpload) graph_upload{};
  decltype(&cuGraphExecDestroy) graph_exec_destroy{};
  decltype(&cuGraphDestroy) graph_destroy{};
  decltype(&cuEventCreate) event_create{};
  decltype(&cuEventDestroy) event_destroy{};
  decltype(&cuEventRecord) event_record{};
  decltype(&cuEventSynchronize) event_sync{};
  decltype(&cuEventElapsedTime) event_elapsed{};
  decltype(&cuGetErrorName) error_name{};
  decltype(&cuGetErrorString) error_string{};
  std::string init_error;  // set when cuInit failed or the library is absent
  bool ready = false;

  DriverApi() : lib({"libcuda.so.1", "libcuda.so"}) {
    if (!lib.loaded()) {
      init_error = "the NVIDIA driver library is not installed (" + lib.error() + ")";
      return;
    }
    lib.bind(init, "cuInit");
    lib.bind(driver_version, "cuDriverGetVersion");
    lib.bind(device_count, "cuDeviceGetCount");
    lib.bind(device_get, "cuDeviceGet");
    lib.bind(device_name, "cuDeviceGetName");
    lib.bind(attribute, "cuDeviceGetAttribute");
    lib.bind(total_mem, "cuDeviceTotalMem_v2");
    lib.bind(pci_bus_id, "cuDeviceGetPCIBusId");
    lib.bind(ctx_retain, "cuDevicePrimaryCtxRetain");
    lib.bind(ctx_release, "cuDevicePrimaryCtxRelease_v2");
    lib.bind(ctx_set_current, "cuCtxSetCurrent");
    lib.bind(ctx_sync, "cuCtxSynchronize");
    lib.bind(mem_alloc, "cuMemAlloc_v2");
    lib.bind(mem_free, "cuMemFree_v2");
    lib.bind(htod_async, "cuMemcpyHtoDAsync_v2");
    lib.bind(dtoh, "cuMemcpyDtoH_v2");
    lib.bind(dtod_async, "cuMemcpyDtoDAsync_v2");
    lib.bind(memset_async, "cuMemsetD8Async");
    lib.bind(module_load, "cuModuleLoadData");
    lib.bind(module_unload, "cuModuleUnload");
    lib.bind(module_function, "cuModuleGetFunction");
    lib.bind(func_attribute, "cuFuncGetAttribute");
    lib.bind(func_set_attribute, "cuFuncSetAttribute");
    lib.bind(launch, "cuLaunchKernel");
    lib.bind(launch_ex, "cuLaunchKernelEx");
    lib.bind(max_active_clusters, "cuOccupancyMaxActiveClusters");
    lib.bind(stream_create, "cuStreamCreate");
    lib.bind(stream_destroy, "cuStreamDestroy_v2");
    lib.bind(stream_sync, "cuStreamSynchronize");
    lib.bind(begin_capture, "cuStreamBeginCapture_v2");
    lib.bind(end_capture, "cuStreamEndCapture");
    lib.bind(graph_instantiate, "cuGraphInstantiateWithFlags");
    lib.bind(graph_launch, "cuGraphLaunch");
    lib.bind(graph_upload, "cuGraphUpload");
    lib.bind(graph_exec_destroy, "cuGraphExecDestroy");
    lib.bind(graph_destroy, "cuGraphDestroy");
    lib.bind(event_create, "cuEventCreate");
    lib.bind(event_destroy, "cuEventDestroy_v2");
    lib.bind(event_record, "cuEventRecord");
    lib.bind(event_sync, "cuEventSynchronize");
    lib.bind(event_elapsed, "cuEventElapsedTime_v2");
    lib.bind(error_name, "cuGetErrorName");
    lib.bind(error_string, "cuGetErrorString");
    const CUresult r = init(0);
    if (r != CUDA_SUCCESS) {
      init_error = "cuInit failed: " + describe(r);
      return;
    }
    ready = true;
  }

  [[nodiscard]] std::string describe(CUresult r) const {
    const char* n = nullptr;
    const char* s = nullptr;
    if (error_name) error_name(r, &n);
    if (error_string) error_string(r, &s);
    return fmt::format("{} ({})", n ? n : fmt::format("CUresult {}", static_cast<int>(r)),
                       s ? s : "no description");
  }

  void check(CUresult r, const std::string& call) const {
    if (r != CUDA_SUCCESS) throw Error(call + ": " + describe(r));
  }
};

DriverApi& driver() {
  static DriverApi api;  // library handle: the one kind of global state STYLE.md allows
  return api;
}

#define R4_CU(expr, what) driver().check((expr), (what))

struct NvrtcApi {
  DynLib lib;
  decltype(&nvrtcVersion) version{};
  decltype(&nvrtcCreateProgram) create{};
  decltype(&nvrtcDestroyProgram) destroy{};
  decltype(&nvrtcCompileProgram) compile{};
  decltype(&nvrtcGetProgramLogSize) log_size{};
  decltype(&nvrtcGetProgramLog) log{};
  decltype(&nvrtcGetCUBINSize) cubin_size{};
  decltype(&nvrtcGetCUBIN) cubin{};
  decltype(&nvrtcGetErrorString) error_string{};

  NvrtcApi()
      : lib(library_candidates("CUDA_HOME", "/usr/local/cuda/lib64",
                               {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})) {
    if (!lib.loaded()) return;
    lib.bind(version, "nvrtcVersion");
    lib.bind(create, "nvrtcCreateProgram");
    lib.bind(destroy, "nvrtcDestroyProgram");
    lib.bind(compile, "nvrtcCompileProgram");
    lib.bind(log_size, "nvrtcGetProgramLogSize");
    lib.bind(log, "nvrtcGetProgramLog");
    lib.bind(cubin_size, "nvrtcGetCUBINSize");
    lib.bind(cubin, "nvrtcGetCUBIN");
    lib.bind(error_string, "nvrtcGetErrorString");
  }
  void require() const {
    if (!lib.loaded()) throw Error("NVRTC is not available: " + lib.error());
  }
};

NvrtcApi& nvrtc() {
  static NvrtcApi api;
  return api;
}

class CudaStream;

class CudaEvent final : public Event {
 public:
  CudaEvent() { R4_CU(driver().event_create(&ev_, CU_EVENT_DEFAULT), "cuEventCreate"); }
  ~CudaEvent() override { driver().event_destroy(ev_); }
  void record(Stream& s) override;
  void synchronize() override { R4_CU(driver().event_sync(ev_), "cuEventSynchronize"); }
  [[nodiscard]] float elapsed_ms_since(const Event& start) const override {
    float ms = 0;
    R4_CU(driver().event_elapsed(&ms, static_cast<const CudaEvent&>(start).ev_, ev_),
          "cuEventElapsedTime");
    return ms;
  }

 private:
  CUevent ev_{};
};

class CudaGraph final : public Graph {
 public:
  explicit CudaGraph(CUgraph g) : graph_(g) {
    R4_CU(driver().graph_instantiate(&exec_, graph_, 0), "cuGraphInstantiateWithFlags");
  }
  ~CudaGraph() override {
    if (exec_) driver().graph_exec_destroy(exec_);
    driver().graph_destroy(graph_);
  }
  void launch(Stream& s) override {
    R4_CU(driver().graph_launch(exec_, reinterpret_cast<CUstream>(s.native())), "cuGraphLaunch");
  }
  bool upload(Stream& s) override {
    R4_CU(driver().graph_upload(exec_, reinterpret_cast<CUstream>(s.native())), "cuGraphUpload");
    return true;
  }

 private:
  CUgraph graph_{};
  CUgraphExec exec_{};
};

class CudaStream final : public Stream {
 public:
  CudaStream() { R4_CU(driver().stream_create(&s_, CU_STREAM_NON_BLOCKING), "cuStreamCreate"); }
  ~CudaStream() override { driver().stream_destroy(s_); }
  void synchronize() override { R4_CU(driver().stream_sync(s_), "cuStreamSynchronize"); }
  void begin_capture() override {
    R4_CU(driver().begin_capture(s_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  }
  [[nodiscard]] std::unique_ptr<Graph> end_capture() override {
    CUgraph g{};
    R4_CU(driver().end_capture(s_, &g), "cuStreamEndCapture");
    return std::make_unique<CudaGraph>(g);
  }
  [[nodiscard]] std::uintptr_t native() const override {
    return reinterpret_cast<std::uintptr_t>(s_);
  }

 private:
  CUstream s_{};
};

void CudaEvent::record(Stream& s) {
  R4_CU(driver().event_record(ev_, reinterpret_cast<CUstream>(s.native())), "cuEventRecord");
}

// cuLaunchKernelEx's config (no stream: the caller sets hStream where it launches).
CUlaunchConfig launch_config(Dim3 g, Dim3 b, unsigned shared, CUlaunchAttribute* attrs,
                             unsigned n) {
  CUlaunchConfig cfg = {};
  cfg.gridDimX = g.x;
  cfg.gridDimY = g.y;
  cfg.gridDimZ = g.z;
  cfg.blockDimX = b.x;
  cfg.blockDimY = b.y;
  cfg.blockDimZ = b.z;
  cfg.sharedMemBytes = shared;
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  return cfg;
}

class CudaKernel final : public Kernel {
 public:
  CudaKernel(CUfunction f, std::string name, const DeviceInfo* device)
      : f_(f), name_(std::move(name)), device_(device) {}
  void launch_with(Dim3 g, Dim3 b, unsigned shared, Stream& s, void** args,
                   const LaunchOptions& opt) override {
    opt_in(shared, opt.cluster);
    const auto what = [&] {
      return fmt::format(
          "{}({}, grid {}x{}x{}, block {}x{}x{}, {} B shared{}{})",
          opt.plain() ? "cuLaunchKernel" : "cuLaunchKernelEx", name_, g.x, g.y, g.z, b.x, b.y, b.z,
          shared, opt.pdl ? ", PDL" : "",
          opt.cluster.x * opt.cluster.y * opt.cluster.z > 1
              ? fmt::format(", cluster {}x{}x{}", opt.cluster.x, opt.cluster.y, opt.cluster.z)
              : std::string());
    };
    const auto stream = reinterpret_cast<CUstream>(s.native());
    if (opt.plain()) {
      R4_CU(driver().launch(f_, g.x, g.y, g.z, b.x, b.y, b.z, shared, stream, args, nullptr),
            what());
      return;
    }
    CUlaunchAttribute attrs[2] = {};
    unsigned n = 0;
    if (opt.pdl) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attrs[n].value.programmaticStreamSerializationAllowed = 1;
      ++n;
    }
    if (opt.cluster.x * opt.cluster.y * opt.cluster.z > 1) {
      attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[n].value.clusterDim.x = opt.cluster.x;
      attrs[n].value.clusterDim.y = opt.cluster.y;
      attrs[n].value.clusterDim.z = opt.cluster.z;
      ++n;
    }
    CUlaunchConfig cfg = launch_config(g, b, shared, attrs, n);
    cfg.hStream = stream;
    R4_CU(driver().launch_ex(&cfg, f_, args, nullptr), what());
  }
  [[nodiscard]] Resources resources() const override {
    auto attr = [&](CUfunction_attribute a, const char* what) {
      int v = 0;
      R4_CU(driver().func_attribute(&v, a, f_), std::string("cuFuncGetAttribute ") + what);
      return v;
    };
    Resources r;
    r.registers = attr(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
    r.stack_bytes = attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES");
    r.shared_bytes = attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES");
    r.max_threads = attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    return r;
  }
  [[nodiscard]] const std::string& name() const override { return name_; }
  [[nodiscard]] const DeviceInfo* device() const override { return device_; }
  [[nodiscard]] int max_active_clusters(Dim3 b, unsigned shared, Dim3 cluster) override {
    const std::array<unsigned, 7> key = {b.x, b.y, b.z, shared, cluster.x, cluster.y, cluster.z};
    for (const auto& [k, n] : clusters_fit_)
      if (k == key) return n;
    opt_in(shared, cluster);
    CUlaunchAttribute attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster.x;
    attr.value.clusterDim.y = cluster.y;
    attr.value.clusterDim.z = cluster.z;
    // A grid of one cluster: the count does not depend on the grid.
    const CUlaunchConfig cfg = launch_config(cluster, b, shared, &attr, 1);
    int n = 0;
    R4_CU(driver().max_active_clusters(&n, f_, &cfg),
          fmt::format("cuOccupancyMaxActiveClusters({}, block {}, {} B shared, cluster {}x{}x{})",
                      name_, b.x, shared, cluster.x, cluster.y, cluster.z));
    clusters_fit_.emplace_back(key, n);
    return n;
  }

 private:
  // What a launch (or a cluster query) with these needs first: above 48 KiB of dynamic shared
  // memory an opt-in (the sm90a generation's rings use up to the 227 KiB the device allows per
  // block); clusters above 8 blocks (the cluster split-K path at SK 16, kernels/splitk.h) the
  // non-portable size (CUDA programming guide, "Thread Block Clusters"; the H100 / H200 schedule
  // up to 16).
  //
  // The 48 KiB a kernel gets without asking hold its static shared memory as well (kernels/splitk.h
  // and the sm90a epilogue declare a flag each): a launch whose dynamic bytes fit 48 KiB only
  // without them fails with CUDA_ERROR_INVALID_VALUE. Session 30 saw exactly that: with the scale
  // chunks on, the sm90a tuples (4, SK, 1, 1, NT, 6) ask for 49152 B and every check of them failed
  // (379 in one sweep, each a worker restart, too slow to finish in 300 s); session 28's cold
  // sweep with the chunks, which ran out of its 420 s, fits the same cause.
  void opt_in(unsigned shared, Dim3 cluster) {
    if (static_shared_ < 0) {
      // Every kernel asks for the largest shared-memory carveout (kernels/config.hpp pdl_allowed,
      // docs/PERF.md "Session 44": an SM that ran a small kernel at the driver's pick for it took
      // no block of a balanced GEMM launched under PDL beside it until it drained). A hint, set
      // once per kernel; R4_EXP_CARVEOUT=N (experiment only) asks for N percent instead.
      const char* cv = std::getenv("R4_EXP_CARVEOUT");
      const int carveout = cv != nullptr && *cv != '\0' ? std::atoi(cv) : 100;
      (void)driver().func_set_attribute(f_, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                                        carveout);
      int v = 0;
      R4_CU(driver().func_attribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f_),
            fmt::format("cuFuncGetAttribute({}, SHARED_SIZE_BYTES)", name_));
      static_shared_ = v;
    }
    if (shared + static_cast<unsigned>(static_shared_) > kDefaultShared && shared > opted_shared_) {
      R4_CU(
          driver().func_set_attribute(f_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(shared)),
          fmt::format("cuFuncSetAttribute({}, MAX_DYNAMIC_SHARED_SIZE_BYTES, {})", name_, shared));
      opted_shared_ = shared;
    }
    if (cluster.x * cluster.y * cluster.z > 8 && !non_portable_) {
      R4_CU(driver().func_set_attribute(f_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
            fmt::format("cuFuncSetAttribute({}, NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)", name_));
      non_portable_ = true;
    }
  }
  static constexpr unsigned kDefaultShared = 48u << 10;
  CUfunction f_;
  std::string name_;
  const DeviceInfo* device_;
  bool non_portable_ = false;
  unsigned opted_shared_ = 0;  // the dynamic bytes opted into so far
  int static_shared_ = -1;     // the kernel's static shared memory, read at the first launch
  std::vector<std::pair<std::array<unsigned, 7>, int>> clusters_fit_;
};

class CudaModule final : public Module {
 public:
  CudaModule(std::span<const std::byte> binary, const DeviceInfo* device) : device_(device) {
    R4_CU(driver().module_load(&m_, binary.data()),
          fmt::format("cuModuleLoadData({} bytes)", binary.size()));
  }
  ~CudaModule() override { driver().module_unload(m_); }
  [[nodiscard]] Kernel& kernel(const std::string& name) override {
    if (auto it = kernels_.find(name); it != kernels_.end()) return *it->second;
    CUfunction f{};
    R4_CU(driver().module_function(&f, m_, name.c_str()), "cuModuleGetFunction(" + name + ")");
    return *kernels_.emplace(name, std::make_unique<CudaKernel>(f, name, device_)).first->second;
  }

 private:
  const DeviceInfo* device_;
  CUmodule m_{};
  std::unordered_map<std::string, std::unique_ptr<CudaKernel>> kernels_;
};

DeviceInfo query_device(int index) {
  auto& d = driver();
  if (!d.ready) throw Error("no CUDA driver: " + d.init_error);
  CUdevice dev{};
  R4_CU(d.device_get(&dev, index), fmt::format("cuDeviceGet({})", index));
  auto attr = [&](CUdevice_attribute a, const char* what) {
    int v = 0;
    R4_CU(d.attribute(&v, a, dev), std::string("cuDeviceGetAttribute ") + what);
    return v;
  };
  DeviceInfo info;
  info.index = index;
  info.vendor = Vendor::nvidia;
  char name[256] = {};
  R4_CU(d.device_name(name, sizeof name, dev), "cuDeviceGetName");
  info.name = name;
  const int major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "CC_MAJOR");
  const int minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "CC_MINOR");
  info.arch = Arch::parse(fmt::format("sm_{}{}", major, minor)).value_or(Arch{});
  info.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
  info.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
  info.llc_bytes = info.l2_bytes;
  size_t total = 0;
  R4_CU(d.total_mem(&total, dev), "cuDeviceTotalMem");
  info.memory_bytes = static_cast<std::int64_t>(total);
  info.sm_clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "CLOCK_RATE");
  info.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE");
  info.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "BUS_WIDTH");
  info.max_shared_per_block =
      attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "MAX_SHARED_PER_BLOCK_OPTIN");
  info.shared_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                                        "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR");
  info.reserved_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                        "RESERVED_SHARED_MEMORY_PER_BLOCK");
  char bus[64] = {};
  if (d.pci_bus_id(bus, sizeof bus, dev) == CUDA_SUCCESS) info.pci_bus_id = bus;
  int dv = 0;
  R4_CU(d.driver_version(&dv), "cuDriverGetVersion");
  info.driver_version = fmt::format("CUDA driver API {}.{}", dv / 1000, (dv % 1000) / 10);
  auto& rt = nvrtc();
  if (rt.lib.loaded()) {
    int a = 0, b = 0;
    rt.version(&a, &b);
    info.runtime_version = fmt::format("NVRTC {}.{}", a, b);
  } else {
    info.runtime_version = "NVRTC not found";
  }
  return info;
}

class CudaContext final : public Context {
 public:
  explicit CudaContext(int index) : info_(query_device(index)) {
    R4_CU(driver().device_get(&dev_, index), "cuDeviceGet");
    R4_CU(driver().ctx_retain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    R4_CU(driver().ctx_set_current(ctx_), "cuCtxSetCurrent");
    upload_ = std::make_unique<CudaStream>();
  }
  ~CudaContext() override {
    upload_.reset();  // a stream of this context: destroyed before the context is released
    driver().ctx_release(dev_);
  }
  [[nodiscard]] const DeviceInfo& info() const override { return info_; }
  [[nodiscard]] DevicePtr alloc(std::size_t bytes) override {
    CUdeviceptr p{};
    R4_CU(driver().mem_alloc(&p, bytes), fmt::format("cuMemAlloc({} bytes)", bytes));
    return p;
  }
  void free(DevicePtr p) noexcept override { driver().mem_free(p); }
  // Complete when it returns, for a launch on any stream. A plain cuMemcpyHtoD from pageable
  // memory may return before its DMA lands ("API synchronization behavior" in the driver API
  // reference), and it is ordered only with the legacy stream, which our non-blocking streams
  // ignore: a kernel launched right after could read the old bytes. The step chain's check did
  // (llama3-8b M = 16, link 0 read the previous input: 96,120 of 98,304 elements "wrong", session
  // 16; session 14 saw the same once). So: an async copy on a private stream, then its sync.
  void copy_to_device(DevicePtr dst, const void* src, std::size_t n) override {
    const auto s = reinterpret_cast<CUstream>(upload_->native());
    R4_CU(driver().htod_async(dst, src, n, s), fmt::format("cuMemcpyHtoDAsync({} bytes)", n));
    upload_->synchronize();
  }
  void copy_to_host(void* dst, DevicePtr src, std::size_t n) override {
    R4_CU(driver().dtoh(dst, src, n), fmt::format("cuMemcpyDtoH({} bytes)", n));
  }
  void copy_device(DevicePtr dst, DevicePtr src, std::size_t n, Stream& s) override {
    R4_CU(driver().dtod_async(dst, src, n, reinterpret_cast<CUstream>(s.native())),
          fmt::format("cuMemcpyDtoDAsync({} bytes)", n));
  }
  void memset8(DevicePtr dst, std::uint8_t v, std::size_t n, Stream& s) override {
    R4_CU(driver().memset_async(dst, v, n, reinterpret_cast<CUstream>(s.native())),
          fmt::format("cuMemsetD8Async({} bytes)", n));
  }
  [[nodiscard]] std::unique_ptr<Module> load(std::span<const std::byte> binary) override {
    return std::make_unique<CudaModule>(binary, &info_);
  }
  [[nodiscard]] std::unique_ptr<Stream> create_stream() override {
    return std::make_unique<CudaStream>();
  }
  [[nodiscard]] std::unique_ptr<Event> create_event() override {
    return std::make_unique<CudaEvent>();
  }
  void synchronize() override { R4_CU(driver().ctx_sync(), "cuCtxSynchronize"); }

 private:
  DeviceInfo info_;
  CUdevice dev_{};
  CUcontext ctx_{};
  std::unique_ptr<CudaStream> upload_;  // copy_to_device's own stream
};

class CudaBackend final : public Backend {
 public:
  [[nodiscard]] Vendor vendor() const override { return Vendor::nvidia; }

  [[nodiscard]] std::string compiler_version() override {
    nvrtc().require();
    int a = 0, b = 0;
    nvrtc().version(&a, &b);
    return fmt::format("nvrtc {}.{}", a, b);
  }

  [[nodiscard]] CompileResult compile(const CompileRequest& req) override {
    auto& rt = nvrtc();
    rt.require();
    CompileResult res;
    if (req.arch.vendor != Vendor::nvidia) {
      res.log = "NVRTC cannot compile for " + req.arch.name;
      return res;
    }
    // sm_90a needs the arch-specific spelling; NVRTC takes it as --gpu-architecture=sm_90a.
    // No fast-math: the kernels' results are checked against a reference, and -Xptxas -v makes
    // ptxas report registers, spills and shared memory per entry point in the log.
    res.options = {"--gpu-architecture=" + req.arch.name, "--std=c++17", "-default-device",
                   "-Xptxas", "-v"};
    for (const auto& d : req.defines) res.options.push_back("-D" + d);
    for (const auto& i : req.include_dirs) res.options.push_back("-I" + i);
    for (const auto& o : req.extra_options) res.options.push_back(o);
    std::vector<const char*> argv;
    for (const auto& o : res.options) argv.push_back(o.c_str());

    std::vector<const char*> hdr_text, hdr_name;
    for (const auto& [name, text] : req.headers) {
      hdr_name.push_back(name.c_str());
      hdr_text.push_back(text.c_str());
    }
    const auto t0 = std::chrono::steady_clock::now();
    nvrtcProgram prog{};
    nvrtcResult r = rt.create(&prog, req.source.c_str(), req.source_name.c_str(),
                              static_cast<int>(hdr_text.size()), hdr_text.data(), hdr_name.data());
    if (r != NVRTC_SUCCESS) throw Error(std::string("nvrtcCreateProgram: ") + rt.error_string(r));
    std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(
        &prog, [](nvrtcProgram* p) { nvrtc().destroy(p); });
    r = rt.compile(prog, static_cast<int>(argv.size()), argv.data());
    size_t log_size = 0;
    rt.log_size(prog, &log_size);
    res.log.resize(log_size);
    if (log_size) rt.log(prog, res.log.data());
    while (!res.log.empty() && (res.log.back() == '\0' || res.log.back() == '\n'))
      res.log.pop_back();
    if (r == NVRTC_SUCCESS) {
      size_t n = 0;
      rt.cubin_size(prog, &n);
      res.binary.resize(n);
      rt.cubin(prog, reinterpret_cast<char*>(res.binary.data()));
      res.ok = n > 0;
      res.resources = parse_ptxas_report(res.log);
    } else if (res.log.empty()) {
      res.log = std::string("nvrtcCompileProgram: ") + rt.error_string(r);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }

  [[nodiscard]] int device_count() override {
    auto& d = driver();
    if (!d.ready) return 0;
    int n = 0;
    if (d.device_count(&n) != CUDA_SUCCESS) return 0;
    return n;
  }

  [[nodiscard]] std::string status() override {
    auto& d = driver();
    if (!d.ready) return d.init_error;
    int n = device_count();
    return fmt::format("CUDA driver at {}: {} device(s)", d.lib.path(), n);
  }

  [[nodiscard]] DeviceInfo device_info(int index) override { return query_device(index); }

  [[nodiscard]] std::unique_ptr<Context> open(int index) override {
    return std::make_unique<CudaContext>(index);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
  return std::make_unique<CudaBackend>();
}

}  // namespace r4::gpu
