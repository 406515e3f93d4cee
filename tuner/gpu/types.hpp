// Plain data that crosses the GPU layer's interface. No vendor header is visible here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tuner/gpu/arch.hpp"

namespace r4::gpu {

// Every failing vendor call becomes one of these; the message names the call and its arguments,
// then the vendor's error name and string, e.g.
//   "cuMemAlloc(68719476736 bytes): CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A compiler or tool that a compile needs is not installed (clang++-19 for offline AMD compiles);
// the message says how to install it. The CLI exits 3 on it (README, exit codes).
class ToolMissing : public Error {
 public:
  using Error::Error;
};

// Device addresses travel as integers so that the interface never needs a vendor pointer type.
using DevicePtr = std::uint64_t;

struct DeviceInfo {
  int index = 0;
  Vendor vendor = Vendor::nvidia;
  std::string name;  // e.g. "NVIDIA H200"
  Arch arch;         // e.g. sm_90
  int multiprocessors = 0;
  std::int64_t l2_bytes = 0;
  // Last-level cache: L2 on NVIDIA; the Infinity Cache (MALL) on AMD parts that report it, else L2.
  std::int64_t llc_bytes = 0;
  std::int64_t memory_bytes = 0;
  int sm_clock_khz = 0;      // peak, as reported; 0 if not reported
  int memory_clock_khz = 0;  // peak, as reported; 0 if not reported
  int memory_bus_bits = 0;
  int max_shared_per_block = 0;
  // An SM's (compute unit's) shared memory and what each resident block reserves of it (CUDA
  // 228 KiB and 1 KiB on compute capability 9.0); sizes the sm90a launches (kernels/config.hpp
  // sm90a_wave_shared_bytes). 0 where not reported.
  int shared_per_multiprocessor = 0;
  int reserved_shared_per_block = 0;
  std::string pci_bus_id;
  std::string driver_version;   // e.g. "13.0 (driver API 13000)"
  std::string runtime_version;  // the compiler library's version, e.g. "NVRTC 13.0"
};

// Resource usage of one compiled kernel, as the compiler or the loader reports it.
struct Resources {
  int registers = -1;    // per thread (VGPRs on AMD)
  int sgprs = -1;        // AMD: scalar registers per wave (-1: not reported, NVIDIA)
  int agprs = -1;        // AMD CDNA: accumulation registers per lane (-1: not reported)
  int spill_stores = 0;  // bytes
  int spill_loads = 0;   // bytes
  int stack_bytes = 0;   // local memory / private segment per thread
  int shared_bytes = 0;  // static shared memory / LDS per block
  int max_threads = 0;   // per block, 0 if unknown (needs a device)
  [[nodiscard]] bool spills() const { return spill_stores > 0 || spill_loads > 0; }
};

struct CompileRequest {
  std::string source;       // the whole translation unit
  std::string source_name;  // used in diagnostics, e.g. "gemm_w4a16_nt.cu"
  Arch arch;
  std::vector<std::string> defines;        // "NAME=VALUE" or "NAME"
  std::vector<std::string> include_dirs;   // searched for #include "..."
  std::vector<std::string> extra_options;  // passed verbatim to the compiler
  // In-memory headers: (include name, text), e.g. ("quant/layout/sm80.h", "..."). Lets a binary
  // carry its kernel sources (kernels/embedded_sources.hpp) and compile anywhere.
  std::vector<std::pair<std::string, std::string>> headers;
  // What the request's config sets at launch rather than at compile time ("sk=4" for a split-K
  // body that reads its factor from the grid): never passed to the compiler, but part of the
  // cache key (tuner/tune/compile_pool.hpp), so configs that share a body keep a row each.
  std::string launch_key;
};

struct CompileResult {
  bool ok = false;
  std::string log;                   // the compiler's log, warnings included
  std::vector<std::byte> binary;     // cubin (NVIDIA) or code object (AMD); empty on failure
  double seconds = 0;                // wall time of the compile call
  std::vector<std::string> options;  // the exact options passed, for the cache key
  // Per kernel (extern "C" names), parsed from the compiler's resource report.
  std::map<std::string, Resources> resources;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// How a launch is made beyond its geometry. The defaults are a plain launch.
struct LaunchOptions {
  // Programmatic dependent launch (sm_90+): the kernel may start while the previous kernel in the
  // stream still runs, once that one has executed griddepcontrol.launch_dependents (or exited);
  // the kernel's griddepcontrol.wait then waits for it to complete. Stream capture keeps the
  // programmatic edge in the graph. Ignored where the device has no PDL (pre-sm_90, AMD).
  bool pdl = false;
  // Thread-block cluster shape (sm_90+); 1x1x1 is no cluster. A backend without clusters refuses
  // anything else.
  Dim3 cluster{1, 1, 1};
  [[nodiscard]] bool plain() const { return !pdl && cluster.x * cluster.y * cluster.z == 1; }
};

}  // namespace r4::gpu
