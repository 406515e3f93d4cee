// HIP backend: HIP module API + hipRTC, loaded with dlopen from libamdhip64 (ROCm 5.x keeps
// hipRTC inside libamdhip64; ROCm 6 moved it to libhiprtc, which is tried too).
//
// Verified here: it builds against Debian's HIP 5.2 headers, and hipRTC compiles kernels for
// gfx1030/gfx1100/gfx90a without a GPU (tests/gpu/hip_compile_test.cpp). Not verified: every
// path that needs an AMD device (no AMD GPU is reachable from this project's machines).
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <fmt/core.h>

#include "tuner/gpu/amd_device.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/gpu/compile_isolated.hpp"
#include "tuner/gpu/dynlib.hpp"
#include "tuner/gpu/resource_report.hpp"

namespace r4::gpu {
namespace {

struct HipApi {
  DynLib lib;
  decltype(&hipInit) init{};
  decltype(&hipDriverGetVersion) driver_version{};
  decltype(&hipRuntimeGetVersion) runtime_version{};
  decltype(&hipGetDeviceCount) device_count{};
  decltype(&hipGetDeviceProperties) properties{};
  decltype(&hipDeviceGetAttribute) attribute{};
  decltype(&hipSetDevice) set_device{};
  decltype(&hipDeviceSynchronize) device_sync{};
  hipError_t (*malloc)(void**, size_t){};  // hipMalloc is overloaded in C++
  decltype(&hipFree) free{};
  decltype(&hipMemcpyHtoDAsync) htod_async{};
  decltype(&hipMemcpyDtoH) dtoh{};
  decltype(&hipMemcpyDtoDAsync) dtod_async{};
  decltype(&hipMemsetD8Async) memset_async{};
  decltype(&hipModuleLoadData) module_load{};
  decltype(&hipModuleUnload) module_unload{};
  decltype(&hipModuleGetFunction) module_function{};
  decltype(&hipFuncGetAttribute) func_attribute{};
  decltype(&hipModuleLaunchKernel) launch{};
  decltype(&hipStreamCreateWithFlags) stream_create{};
  decltype(&hipStreamDestroy) stream_destroy{};
  decltype(&hipStreamSynchronize) stream_sync{};
  decltype(&hipStreamBeginCapture) begin_capture{};
  decltype(&hipStreamEndCapture) end_capture{};
  decltype(&hipGraphInstantiate) graph_instantiate{};
  decltype(&hipGraphLaunch) graph_launch{};
  // hipGraphUpload arrived in HIP 5.3; Debian's 5.2 lacks it, so it is looked up, not required.
  using GraphUploadFn = hipError_t (*)(hipGraphExec_t, hipStream_t);
  GraphUploadFn graph_upload{};
  decltype(&hipGraphExecDestroy) graph_exec_destroy{};
  decltype(&hipGraphDestroy) graph_destroy{};
  decltype(&hipEventCreate) event_create{};
  decltype(&hipEventDestroy) event_destroy{};
  decltype(&hipEventRecord) event_record{};
  decltype(&hipEventSynchronize) event_sync{};
  decltype(&hipEventElapsedTime) event_elapsed{};
  decltype(&hipGetErrorName) error_name{};
  decltype(&hipGetErrorString) error_string{};
  std::string init_error;
  bool ready = false;

  HipApi()
      : lib(library_candidates("ROCM_PATH", "/opt/rocm/lib",
                               {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"})) {
    if (!lib.loaded()) {
      init_error = "the HIP runtime is not installed (" + lib.error() + ")";
      return;
    }
    lib.bind(init, "hipInit");
    lib.bind(driver_version, "hipDriverGetVersion");
    lib.bind(runtime_version, "hipRuntimeGetVersion");
    lib.bind(device_count, "hipGetDeviceCount");
    properties = reinterpret_cast<decltype(properties)>(lib.find("hipGetDevicePropertiesR0600"));
    if (!properties) lib.bind(properties, "hipGetDeviceProperties");
    lib.bind(attribute, "hipDeviceGetAttribute");
    lib.bind(set_device, "hipSetDevice");
    lib.bind(device_sync, "hipDeviceSynchronize");
    lib.bind(malloc, "hipMalloc");
    lib.bind(free, "hipFree");
    lib.bind(htod_async, "hipMemcpyHtoDAsync");
    lib.bind(dtoh, "hipMemcpyDtoH");
    lib.bind(dtod_async, "hipMemcpyDtoDAsync");
    lib.bind(memset_async, "hipMemsetD8Async");
    lib.bind(module_load, "hipModuleLoadData");
    lib.bind(module_unload, "hipModuleUnload");
    lib.bind(module_function, "hipModuleGetFunction");
    lib.bind(func_attribute, "hipFuncGetAttribute");
    lib.bind(launch, "hipModuleLaunchKernel");
    lib.bind(stream_create, "hipStreamCreateWithFlags");
    lib.bind(stream_destroy, "hipStreamDestroy");
    lib.bind(stream_sync, "hipStreamSynchronize");
    lib.bind(begin_capture, "hipStreamBeginCapture");
    lib.bind(end_capture, "hipStreamEndCapture");
    lib.bind(graph_instantiate, "hipGraphInstantiate");
    lib.bind(graph_launch, "hipGraphLaunch");
    graph_upload = reinterpret_cast<GraphUploadFn>(lib.find("hipGraphUpload"));
    lib.bind(graph_exec_destroy, "hipGraphExecDestroy");
    lib.bind(graph_destroy, "hipGraphDestroy");
    lib.bind(event_create, "hipEventCreate");
    lib.bind(event_destroy, "hipEventDestroy");
    lib.bind(event_record, "hipEventRecord");
    lib.bind(event_sync, "hipEventSynchronize");
    lib.bind(event_elapsed, "hipEventElapsedTime");
    lib.bind(error_name, "hipGetErrorName");
    lib.bind(error_string, "hipGetErrorString");
    const hipError_t r = init(0);
    if (r != hipSuccess) {
      init_error = "hipInit failed: " + describe(r);
      return;
    }
    ready = true;
  }
  [[nodiscard]] std::string describe(hipError_t r) const {
    return fmt::format("{} ({})", error_name ? error_name(r) : "hipError",
                       error_string ? error_string(r) : "no description");
  }
  void check(hipError_t r, const std::string& call) const {
    if (r != hipSuccess) throw Error(call + ": " + describe(r));
  }
};

HipApi& hip() {
  static HipApi api;  // library handle: the one kind of global state STYLE.md allows
  return api;
}

// hipRTC: inside libamdhip64 on ROCm 5, in libhiprtc on ROCm 6.
struct HiprtcApi {
  DynLib lib;
  decltype(&hiprtcVersion) version{};
  decltype(&hiprtcCreateProgram) create{};
  decltype(&hiprtcDestroyProgram) destroy{};
  decltype(&hiprtcCompileProgram) compile{};
  decltype(&hiprtcGetProgramLogSize) log_size{};
  decltype(&hiprtcGetProgramLog) log{};
  decltype(&hiprtcGetCodeSize) code_size{};
  decltype(&hiprtcGetCode) code{};
  decltype(&hiprtcGetErrorString) error_string{};

  HiprtcApi()
      : lib(library_candidates(
            "ROCM_PATH", "/opt/rocm/lib",
            {"libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5", "libamdhip64.so"})) {
    if (!lib.loaded()) return;
    lib.bind(version, "hiprtcVersion");
    lib.bind(create, "hiprtcCreateProgram");
    lib.bind(destroy, "hiprtcDestroyProgram");
    lib.bind(compile, "hiprtcCompileProgram");
    lib.bind(log_size, "hiprtcGetProgramLogSize");
    lib.bind(log, "hiprtcGetProgramLog");
    lib.bind(code_size, "hiprtcGetCodeSize");
    lib.bind(code, "hiprtcGetCode");
    lib.bind(error_string, "hiprtcGetErrorString");
  }
  void require() const {
    if (!lib.loaded()) throw Error("hipRTC is not available: " + lib.error());
  }
};

HiprtcApi& hiprtc() {
  static HiprtcApi api;
  return api;
}

// Serialises the forks around hipRTC (see HipBackend::compile).
std::mutex& fork_mutex() {
  static std::mutex mu;
  return mu;
}

#define R4_HIP(expr, what) hip().check((expr), (what))

class HipEvent final : public Event {
 public:
  HipEvent() { R4_HIP(hip().event_create(&ev_), "hipEventCreate"); }
  ~HipEvent() override { static_cast<void>(hip().event_destroy(ev_)); }
  void record(Stream& s) override {
    R4_HIP(hip().event_record(ev_, reinterpret_cast<hipStream_t>(s.native())), "hipEventRecord");
  }
  void synchronize() override { R4_HIP(hip().event_sync(ev_), "hipEventSynchronize"); }
  [[nodiscard]] float elapsed_ms_since(const Event& start) const override {
    float ms = 0;
    R4_HIP(hip().event_elapsed(&ms, static_cast<const HipEvent&>(start).ev_, ev_),
           "hipEventElapsedTime");
    return ms;
  }

 private:
  hipEvent_t ev_{};
};

class HipGraph final : public Graph {
 public:
  explicit HipGraph(hipGraph_t g) : graph_(g) {
    R4_HIP(hip().graph_instantiate(&exec_, graph_, nullptr, nullptr, 0), "hipGraphInstantiate");
  }
  ~HipGraph() override {
    if (exec_) static_cast<void>(hip().graph_exec_destroy(exec_));
    static_cast<void>(hip().graph_destroy(graph_));
  }
  void launch(Stream& s) override {
    R4_HIP(hip().graph_launch(exec_, reinterpret_cast<hipStream_t>(s.native())), "hipGraphLaunch");
  }
  bool upload(Stream& s) override {
    if (!hip().graph_upload) return false;
    R4_HIP(hip().graph_upload(exec_, reinterpret_cast<hipStream_t>(s.native())), "hipGraphUpload");
    return true;
  }

 private:
  hipGraph_t graph_{};
  hipGraphExec_t exec_{};
};

class HipStream final : public Stream {
 public:
  HipStream() { R4_HIP(hip().stream_create(&s_, hipStreamNonBlocking), "hipStreamCreate"); }
  ~HipStream() override { static_cast<void>(hip().stream_destroy(s_)); }
  void synchronize() override { R4_HIP(hip().stream_sync(s_), "hipStreamSynchronize"); }
  void begin_capture() override {
    R4_HIP(hip().begin_capture(s_, hipStreamCaptureModeThreadLocal), "hipStreamBeginCapture");
  }
  [[nodiscard]] std::unique_ptr<Graph> end_capture() override {
    hipGraph_t g{};
    R4_HIP(hip().end_capture(s_, &g), "hipStreamEndCapture");
    return std::make_unique<HipGraph>(g);
  }
  [[nodiscard]] std::uintptr_t native() const override {
    return reinterpret_cast<std::uintptr_t>(s_);
  }

 private:
  hipStream_t s_{};
};

class HipKernel final : public Kernel {
 public:
  HipKernel(hipFunction_t f, std::string name) : f_(f), name_(std::move(name)) {}
  // No programmatic dependent launch on AMD: the kernels' griddepcontrol shims compile to nothing
  // there, so a PDL request is a plain launch. Clusters do not exist.
  void launch_with(Dim3 g, Dim3 b, unsigned shared, Stream& s, void** args,
                   const LaunchOptions& opt) override {
    if (opt.cluster.x * opt.cluster.y * opt.cluster.z > 1)
      throw Error("hipModuleLaunchKernel(" + name_ + "): thread-block clusters are NVIDIA-only");
    R4_HIP(hip().launch(f_, g.x, g.y, g.z, b.x, b.y, b.z, shared,
                        reinterpret_cast<hipStream_t>(s.native()), args, nullptr),
           fmt::format("hipModuleLaunchKernel({}, grid {}x{}x{}, block {}x{}x{})", name_, g.x, g.y,
                       g.z, b.x, b.y, b.z));
  }
  [[nodiscard]] Resources resources() const override {
    auto attr = [&](hipFunction_attribute a, const char* what) {
      int v = 0;
      R4_HIP(hip().func_attribute(&v, a, f_), std::string("hipFuncGetAttribute ") + what);
      return v;
    };
    Resources r;
    r.registers = attr(HIP_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS");
    r.stack_bytes = attr(HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES");
    r.shared_bytes = attr(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES");
    r.max_threads = attr(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK");
    return r;
  }
  [[nodiscard]] const std::string& name() const override { return name_; }

 private:
  hipFunction_t f_;
  std::string name_;
};

class HipModule final : public Module {
 public:
  explicit HipModule(std::span<const std::byte> binary) {
    R4_HIP(hip().module_load(&m_, binary.data()),
           fmt::format("hipModuleLoadData({} bytes)", binary.size()));
  }
  ~HipModule() override { static_cast<void>(hip().module_unload(m_)); }
  [[nodiscard]] Kernel& kernel(const std::string& name) override {
    if (auto it = kernels_.find(name); it != kernels_.end()) return *it->second;
    hipFunction_t f{};
    R4_HIP(hip().module_function(&f, m_, name.c_str()), "hipModuleGetFunction(" + name + ")");
    return *kernels_.emplace(name, std::make_unique<HipKernel>(f, name)).first->second;
  }

 private:
  hipModule_t m_{};
  std::unordered_map<std::string, std::unique_ptr<HipKernel>> kernels_;
};

DeviceInfo query_device(int index) {
  auto& h = hip();
  if (!h.ready) throw Error("no HIP runtime: " + h.init_error);
  hipDeviceProp_t p{};
  R4_HIP(h.properties(&p, index), fmt::format("hipGetDeviceProperties({})", index));
  DeviceInfo info;
  info.index = index;
  info.vendor = Vendor::amd;
  info.name = p.name;
  // gcnArchName is e.g. "gfx942:sramecc+:xnack-": the target is the part before the first ':'.
  info.arch = amd_arch_from_gcn_name(p.gcnArchName).value_or(Arch{});
  info.multiprocessors = p.multiProcessorCount;  // compute units (MI300X: 304)
  info.l2_bytes = p.l2CacheSize;
  // HIP does not report the Infinity Cache (MALL); amd_device.cpp knows it per part (MI300X 256
  // MiB, RX 9070 XT 64 MiB). A spec's pool.llc_bytes still overrides it.
  info.llc_bytes = amd_llc_bytes(info.arch, p.memoryBusWidth, info.l2_bytes);
  info.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  info.sm_clock_khz = p.clockRate;
  info.memory_clock_khz = p.memoryClockRate;
  info.memory_bus_bits = p.memoryBusWidth;
  info.max_shared_per_block = static_cast<int>(p.sharedMemPerBlock);
  info.shared_per_multiprocessor = static_cast<int>(p.maxSharedMemoryPerMultiProcessor);
  info.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  int dv = 0, rv = 0;
  static_cast<void>(h.driver_version(&dv));
  static_cast<void>(h.runtime_version(&rv));
  info.driver_version = fmt::format("HIP driver {}", dv);
  info.runtime_version = fmt::format("HIP runtime {}", rv);
  return info;
}

class HipContext final : public Context {
 public:
  explicit HipContext(int index) : info_(query_device(index)) {
    R4_HIP(hip().set_device(index), "hipSetDevice");
    upload_ = std::make_unique<HipStream>();
  }
  [[nodiscard]] const DeviceInfo& info() const override { return info_; }
  [[nodiscard]] DevicePtr alloc(std::size_t bytes) override {
    void* p = nullptr;
    R4_HIP(hip().malloc(&p, bytes), fmt::format("hipMalloc({} bytes)", bytes));
    return reinterpret_cast<DevicePtr>(p);
  }
  void free(DevicePtr p) noexcept override {
    static_cast<void>(hip().free(reinterpret_cast<void*>(p)));
  }
  // Complete when it returns, for a launch on any stream: an async copy on a private stream and
  // its sync, as the CUDA backend (backend_cuda.cpp says why a plain synchronous copy is not).
  void copy_to_device(DevicePtr dst, const void* src, std::size_t n) override {
    R4_HIP(hip().htod_async(reinterpret_cast<hipDeviceptr_t>(dst), const_cast<void*>(src), n,
                            reinterpret_cast<hipStream_t>(upload_->native())),
           fmt::format("hipMemcpyHtoDAsync({} bytes)", n));
    upload_->synchronize();
  }
  void copy_to_host(void* dst, DevicePtr src, std::size_t n) override {
    R4_HIP(hip().dtoh(dst, reinterpret_cast<hipDeviceptr_t>(src), n),
           fmt::format("hipMemcpyDtoH({} bytes)", n));
  }
  void copy_device(DevicePtr dst, DevicePtr src, std::size_t n, Stream& s) override {
    R4_HIP(hip().dtod_async(reinterpret_cast<hipDeviceptr_t>(dst),
                            reinterpret_cast<hipDeviceptr_t>(src), n,
                            reinterpret_cast<hipStream_t>(s.native())),
           fmt::format("hipMemcpyDtoDAsync({} bytes)", n));
  }
  void memset8(DevicePtr dst, std::uint8_t v, std::size_t n, Stream& s) override {
    R4_HIP(hip().memset_async(reinterpret_cast<hipDeviceptr_t>(dst), v, n,
                              reinterpret_cast<hipStream_t>(s.native())),
           fmt::format("hipMemsetD8Async({} bytes)", n));
  }
  [[nodiscard]] std::unique_ptr<Module> load(std::span<const std::byte> binary) override {
    return std::make_unique<HipModule>(binary);
  }
  [[nodiscard]] std::unique_ptr<Stream> create_stream() override {
    return std::make_unique<HipStream>();
  }
  [[nodiscard]] std::unique_ptr<Event> create_event() override {
    return std::make_unique<HipEvent>();
  }
  void synchronize() override { R4_HIP(hip().device_sync(), "hipDeviceSynchronize"); }

 private:
  DeviceInfo info_;
  std::unique_ptr<HipStream> upload_;  // copy_to_device's own stream
};

class HipBackend final : public Backend {
 public:
  [[nodiscard]] Vendor vendor() const override { return Vendor::amd; }
  [[nodiscard]] std::string compiler_version() override {
    hiprtc().require();
    int a = 0, b = 0;
    hiprtc().version(&a, &b);
    return fmt::format("hiprtc {}.{}", a, b);
  }
  // Debian's ROCm 5.2 comgr frees an invalid pointer and aborts the process whenever a compile
  // fails (a syntax error, a missing header, a target it does not know such as gfx1201): seen
  // here 2026-11-30, backtrace in amd_comgr_destroy_action_info. So every hipRTC compile runs in a
  // forked child that sends its result back through a pipe; a crash becomes a failed compile.
  // Compiles are serialised around fork() so no other thread is inside hipRTC when it happens.
  [[nodiscard]] CompileResult compile(const CompileRequest& req) override {
    hiprtc().require();
    std::lock_guard lock(fork_mutex());
    auto res = compile_isolated(req, [this](const CompileRequest& r) { return compile_here(r); });
    if (res.ok) {
      res.resources = parse_amdgpu_remarks(res.log);
      if (res.resources.empty()) res.resources = parse_amdgpu_metadata(res.binary);
    }
    return res;
  }

  [[nodiscard]] CompileResult compile_here(const CompileRequest& req) {
    auto& rt = hiprtc();
    CompileResult res;
    if (req.arch.vendor != Vendor::amd) {
      res.log = "hipRTC cannot compile for " + req.arch.name;
      return res;
    }
    // -O3 is hipRTC's default; the remark makes clang print VGPRs, spills and LDS per kernel.
    res.options = {"--offload-arch=" + req.arch.name, "-O3", "-std=c++17",
                   "-Rpass-analysis=kernel-resource-usage"};
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
    hiprtcProgram prog{};
    hiprtcResult r = rt.create(&prog, req.source.c_str(), req.source_name.c_str(),
                               static_cast<int>(hdr_text.size()), hdr_text.data(), hdr_name.data());
    if (r != HIPRTC_SUCCESS) throw Error(std::string("hiprtcCreateProgram: ") + rt.error_string(r));
    std::unique_ptr<hiprtcProgram, void (*)(hiprtcProgram*)> guard(
        &prog, [](hiprtcProgram* p) { hiprtc().destroy(p); });
    r = rt.compile(prog, static_cast<int>(argv.size()), argv.data());
    size_t log_size = 0;
    rt.log_size(prog, &log_size);
    res.log.resize(log_size);
    if (log_size) rt.log(prog, res.log.data());
    while (!res.log.empty() && (res.log.back() == '\0' || res.log.back() == '\n'))
      res.log.pop_back();
    if (r == HIPRTC_SUCCESS) {
      size_t n = 0;
      rt.code_size(prog, &n);
      res.binary.resize(n);
      rt.code(prog, reinterpret_cast<char*>(res.binary.data()));
      res.ok = n > 0;
    } else if (res.log.empty()) {
      res.log = std::string("hiprtcCompileProgram: ") + rt.error_string(r);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }
  [[nodiscard]] int device_count() override {
    auto& h = hip();
    if (!h.ready) return 0;
    int n = 0;
    return h.device_count(&n) == hipSuccess ? n : 0;
  }
  [[nodiscard]] std::string status() override {
    auto& h = hip();
    if (!h.ready) return h.init_error;
    return fmt::format("HIP runtime at {}: {} device(s)", h.lib.path(), device_count());
  }
  [[nodiscard]] DeviceInfo device_info(int index) override { return query_device(index); }
  [[nodiscard]] std::unique_ptr<Context> open(int index) override {
    return std::make_unique<HipContext>(index);
  }
};

}  // namespace

std::unique_ptr<Backend> make_hip_backend() {
  return std::make_unique<HipBackend>();
}

bool hiprtc_supports(const Arch& arch) {
  if (arch.vendor != Vendor::amd || !hiprtc().lib.loaded()) return false;
  // One probe per arch and process: a trivial kernel. Debian's ROCm 5.2 passes gfx90a and
  // gfx1030, rejects gfx1100 ("invalid target ID") and aborts in comgr on gfx12 (the fork
  // contains that), 2026-11-30.
  static std::mutex mu;
  static std::map<std::string, bool> known;  // a cache of the library's answers, like its handle
  std::lock_guard lock(mu);
  if (auto it = known.find(arch.name); it != known.end()) return it->second;
  CompileRequest probe;
  probe.source = "extern \"C\" __global__ void r4_probe(int* p) { p[threadIdx.x] = 1; }";
  probe.source_name = "r4_probe.hip";
  probe.arch = arch;
  HipBackend be;
  std::lock_guard fork_lock(fork_mutex());
  // The child's stderr goes to /dev/null: an aborting comgr prints "munmap_chunk(): invalid
  // pointer" there, which is the expected answer to this question, not news for the user.
  const bool ok = compile_isolated(probe, [&be](const CompileRequest& r) {
                    const int null_fd = ::open("/dev/null", O_WRONLY);
                    if (null_fd >= 0) ::dup2(null_fd, 2);
                    return be.compile_here(r);
                  }).ok;
  known.emplace(arch.name, ok);
  return ok;
}

}  // namespace r4::gpu
