// The vendor-neutral GPU interface: about a dozen operations, two implementations
// (backend_cuda.cpp, backend_hip.cpp). Only those two files include vendor headers; they load the
// vendor libraries with dlopen, so a binary built against this interface starts on a machine with
// no GPU and no driver, and can still compile for a named arch.
#pragma once

#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

class Stream;

class Event {
 public:
  virtual ~Event() = default;
  virtual void record(Stream& s) = 0;
  virtual void synchronize() = 0;
  // Milliseconds from `start` to this event; both must have completed.
  [[nodiscard]] virtual float elapsed_ms_since(const Event& start) const = 0;
};

// A captured sequence of launches that replays as one submission.
class Graph {
 public:
  virtual ~Graph() = default;
  virtual void launch(Stream& s) = 0;
  // Uploads the executable graph ahead of its first launch, in stream order, without running it.
  // False where the runtime has no such call (HIP before 5.3): then the first launch uploads.
  virtual bool upload(Stream& s) = 0;
};

class Stream {
 public:
  virtual ~Stream() = default;
  virtual void synchronize() = 0;
  virtual void begin_capture() = 0;
  [[nodiscard]] virtual std::unique_ptr<Graph> end_capture() = 0;
  // The vendor handle (CUstream / hipStream_t) as an integer, for handing to kernels' callers.
  [[nodiscard]] virtual std::uintptr_t native() const = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // `args[i]` points at the value of the i-th kernel parameter, as in cuLaunchKernel. Dynamic
  // shared memory above the default 48 KiB is opted into on the kernel's first such launch.
  void launch(Dim3 grid, Dim3 block, unsigned shared_bytes, Stream& s, void** args) {
    launch_with(grid, block, shared_bytes, s, args, LaunchOptions{});
  }
  // The same with launch options (programmatic dependent launch, clusters).
  virtual void launch_with(Dim3 grid, Dim3 block, unsigned shared_bytes, Stream& s, void** args,
                           const LaunchOptions& opt) = 0;
  [[nodiscard]] virtual Resources resources() const = 0;
  [[nodiscard]] virtual const std::string& name() const = 0;
  // The device the kernel is loaded on (its context's info(), which outlives the kernel), or null
  // where the backend does not say.
  [[nodiscard]] virtual const DeviceInfo* device() const { return nullptr; }
  // How many clusters of `cluster` blocks of `block` threads with `shared_bytes` of dynamic shared
  // memory the device can hold at once (cuOccupancyMaxActiveClusters; cached per argument set;
  // opts into the shared memory and the non-portable cluster size as a launch would). 0 where
  // the backend has no clusters. Not thread-safe, as launch_with.
  [[nodiscard]] virtual int max_active_clusters(Dim3 block, unsigned shared_bytes, Dim3 cluster) {
    (void)block;
    (void)shared_bytes;
    (void)cluster;
    return 0;
  }
};

class Module {
 public:
  virtual ~Module() = default;
  // Throws Error naming the kernel and the module when it is absent.
  [[nodiscard]] virtual Kernel& kernel(const std::string& name) = 0;
};

class Context {
 public:
  virtual ~Context() = default;
  [[nodiscard]] virtual const DeviceInfo& info() const = 0;
  [[nodiscard]] virtual DevicePtr alloc(std::size_t bytes) = 0;
  virtual void free(DevicePtr p) noexcept = 0;
  // Complete when it returns: a launch on any stream after it reads the new bytes (a plain
  // synchronous copy from pageable memory does not promise that: backend_cuda.cpp).
  virtual void copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_to_host(void* dst, DevicePtr src, std::size_t bytes) = 0;
  virtual void copy_device(DevicePtr dst, DevicePtr src, std::size_t bytes, Stream& s) = 0;
  virtual void memset8(DevicePtr dst, std::uint8_t value, std::size_t bytes, Stream& s) = 0;
  [[nodiscard]] virtual std::unique_ptr<Module> load(std::span<const std::byte> binary) = 0;
  [[nodiscard]] virtual std::unique_ptr<Stream> create_stream() = 0;
  [[nodiscard]] virtual std::unique_ptr<Event> create_event() = 0;
  virtual void synchronize() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual Vendor vendor() const = 0;
  // Compiler identity for cache keys, e.g. "nvrtc 13.0"; throws Error if the library is missing.
  [[nodiscard]] virtual std::string compiler_version() = 0;
  // Run-time compile; needs no device. Never throws for bad source: ok=false and the log.
  // Throws Error only if the compiler library itself cannot be loaded.
  [[nodiscard]] virtual CompileResult compile(const CompileRequest& req) = 0;
  // 0 when the driver is absent or reports no device; `status()` then says why.
  [[nodiscard]] virtual int device_count() = 0;
  [[nodiscard]] virtual std::string status() = 0;
  [[nodiscard]] virtual DeviceInfo device_info(int index) = 0;
  [[nodiscard]] virtual std::unique_ptr<Context> open(int index) = 0;
};

[[nodiscard]] std::unique_ptr<Backend> make_cuda_backend();
// nullptr when the HIP backend was not built (R4_BUILD_HIP=OFF).
[[nodiscard]] std::unique_ptr<Backend> make_hip_backend();
// The backend that compiles for `vendor`; throws Error if it was not built.
[[nodiscard]] std::unique_ptr<Backend> make_backend(Vendor vendor);
// The backend that compiles for `arch`: NVRTC for NVIDIA; for AMD, hipRTC when an installed ROCm
// knows the target (hiprtc_supports), else the offline clang-19 compiler (clang_hip.hpp), whose
// device operations still go to the HIP runtime when there is one. R4TUNE_AMD_COMPILER=clang or
// =hiprtc forces the choice. The chosen compiler names itself in compiler_version().
[[nodiscard]] std::unique_ptr<Backend> make_backend(const Arch& arch);
// Whether the installed hipRTC compiles for `arch`: one probe compile per arch and process
// (forked, so a comgr that aborts on an unknown target cannot take r4tune down). False when the
// HIP backend was not built or hipRTC is absent.
[[nodiscard]] bool hiprtc_supports(const Arch& arch);

// RAII owner of one device allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Context& ctx, std::size_t bytes)
      : ctx_(&ctx), ptr_(ctx.alloc(bytes)), bytes_(bytes) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ctx_ = o.ctx_;
      ptr_ = o.ptr_;
      bytes_ = o.bytes_;
      o.ctx_ = nullptr;
      o.ptr_ = 0;
      o.bytes_ = 0;
    }
    return *this;
  }
  ~DeviceBuffer() { reset(); }
  void reset() noexcept {
    if (ctx_ && ptr_) ctx_->free(ptr_);
    ctx_ = nullptr;
    ptr_ = 0;
    bytes_ = 0;
  }
  [[nodiscard]] DevicePtr get() const { return ptr_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  Context* ctx_ = nullptr;
  DevicePtr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// Packs kernel arguments by value and hands out the pointer array cuLaunchKernel expects.
class KernelArgs {
 public:
  template <class T>
  KernelArgs& add(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto& slot = storage_.emplace_back(sizeof(T));
    std::memcpy(slot.data(), &v, sizeof(T));
    return *this;
  }
  [[nodiscard]] void** data() {
    ptrs_.clear();
    for (auto& s : storage_) ptrs_.push_back(s.data());
    return ptrs_.data();
  }

 private:
  std::vector<std::vector<std::byte>> storage_;
  std::vector<void*> ptrs_;
};

}  // namespace r4::gpu
