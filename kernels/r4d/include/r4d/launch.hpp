// Launchers with the seeds' argument order (seeds/000 `_GEMM(...)`, `_A8(...)`, `_QACT(...)`),
// the automatic r4d::gemm, and the one-time workspace registration they need.
//
// A launch allocates nothing, never synchronises and never calls into the driver beyond
// cudaGetDevice + cudaLaunchKernel (cudaLaunchKernelExC with the programmatic-serialization
// attribute under PDL), so it is safe inside CUDA-graph capture. The split-K workspace (and
// r4d::gemm's int8 activation scratch) is registered ONCE per device, before the first launch, by
// init(device) or register_workspace(...). A launch on a device with none registered returns
// Status::not_initialised; it never allocates behind the caller's back.
// Launches that share a device's workspace must be ordered (one stream, or one graph): split-K
// partials and tile counters live there. Under PDL (r4d/pdl.hpp; the last parameter of every
// launcher, on by default where the device has it) consecutive r4d launches in a stream overlap,
// and still share the workspace safely: each kernel touches it (and its activations and output)
// only after griddepcontrol.wait, i.e. after the previous kernel in the stream has completed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "r4d/pdl.hpp"
#include "r4d/status.hpp"
#include "r4d/table.hpp"

struct CUstream_st;  // the CUDA runtime's stream type: cudaStream_t is CUstream_st*

namespace r4d {

using stream_t = CUstream_st*;  // == cudaStream_t; nullptr is the legacy default stream
// An integer stream handle (torch's `current_stream().cuda_stream`) as a stream.
[[nodiscard]] inline stream_t stream_from_handle(std::uintptr_t h) {
  return reinterpret_cast<stream_t>(h);  // NOLINT: the handle IS the pointer
}

// Bytes init() allocates: the largest split-K workspace any compiled-in table row needs at its
// band's top M (kernels/family.hpp workspace_bytes), plus 64 x max K int8 + 64 f32 activation
// scratch for r4d::gemm's w4a8 path, each 256-byte aligned.
[[nodiscard]] std::size_t workspace_bytes_required();

// Allocates (cudaMalloc) and zeroes the workspace for `device`, and records the device's compute
// capability (and with it whether PDL is available: pdl_supported). On a compute capability 9.0
// device it also opts every compiled sm90a kernel into the dynamic shared memory its ring needs
// (cudaFuncSetAttribute MaxDynamicSharedMemorySize, up to 227 KiB), which loads those kernels, so
// that launches never call anything but the launch itself. Idempotent; call it outside graph
// capture. Synchronises once (the zeroing).
[[nodiscard]] Status init(int device);
// Uses caller-owned device memory instead (zeroed, >= workspace_bytes_required() for the whole
// table; smaller works for shapes whose split-K need fits, and r4d::gemm's w4a8 path then needs
// K*64 + 256 bytes beyond the split-K part). The memory must outlive every launch. Records the
// device and opts the sm90a kernels in as init() does; call it outside graph capture.
[[nodiscard]] Status register_workspace(int device, void* ptr, std::size_t bytes);
// For callers that cannot call init() up front (the Python module does this before each launch):
// init() for the calling thread's current device, unless it is registered already (a lock-free
// check) or `stream` is capturing a graph, where it allocates nothing and says not_initialised.
[[nodiscard]] Status ensure_initialised(stream_t stream);
// Frees what init() allocated (not caller-owned memory) and forgets the device. Not while
// launches are in flight.
void release(int device);

// Every launcher takes, last, `pdl` (r4d/pdl.hpp): automatic (the default) launches with
// programmatic dependent launch where the device supports it; off never; on always, refusing
// with Status::pdl_unsupported where the device cannot.
//
// The explicit launchers come in two forms: the seeds' (WV, SK, MB, NPW, NT) integers, which name
// a mma_sync config, and a Config, which names either generation (what config_for returns; an
// sm90a config runs on a compute capability 9.0 device only: elsewhere is_valid refuses it,
// invalid_config). The config must be one of the compiled-in ones (r4d::compiled_configs), else
// not_compiled.
//
// C[M, N] bf16 = A[M, K] f16 x W^T; W packed (wq, wsz) in the sm80 layout (quant/layout/sm80.h),
// which both generations read. A 16-byte aligned, K a multiple of 128, N of 16, M in 1..64.
[[nodiscard]] Status gemm_w4a16_nt(const void* a, const void* wq, const void* wsz, void* c, int M,
                                   int K, int N, const Config& cfg, stream_t stream,
                                   Pdl pdl = Pdl::automatic);
[[nodiscard]] Status gemm_w4a16_nt(const void* a, const void* wq, const void* wsz, void* c, int M,
                                   int K, int N, int WV, int SK, int MB, int NPW, int NT,
                                   stream_t stream, Pdl pdl = Pdl::automatic);
// The same kernel with A in bf16 (R4_A_BF16=1): what r4d::gemm's w4a16 path launches.
[[nodiscard]] Status gemm_w4a16_nt_bf16(const void* a, const void* wq, const void* wsz, void* c,
                                        int M, int K, int N, const Config& cfg, stream_t stream,
                                        Pdl pdl = Pdl::automatic);
[[nodiscard]] Status gemm_w4a16_nt_bf16(const void* a, const void* wq, const void* wsz, void* c,
                                        int M, int K, int N, int WV, int SK, int MB, int NPW,
                                        int NT, stream_t stream, Pdl pdl = Pdl::automatic);
// C[M, N] bf16 = diag(sc) q[M, K] int8 x W^T (the same packed W).
[[nodiscard]] Status gemm_w4a8_nt(const void* q, const void* sc, const void* wq, const void* wsz,
                                  void* c, int M, int K, int N, const Config& cfg, stream_t stream,
                                  Pdl pdl = Pdl::automatic);
[[nodiscard]] Status gemm_w4a8_nt(const void* q, const void* sc, const void* wq, const void* wsz,
                                  void* c, int M, int K, int N, int WV, int SK, int MB, int NPW,
                                  int NT, stream_t stream, Pdl pdl = Pdl::automatic);
// q[M, K] int8, sc[M] f32 = per-row symmetric quantisation of A[M, K] bf16. K a multiple of 8.
// Without an order, q is natural (row-major, k ascending): what the mma_sync and ldg generations
// read. An sm90a config's one-byte GEMM reads q in ActOrder::sm90a (below): pass
// act_order(dtype, config) to the ordered form.
[[nodiscard]] Status quant_act(const void* a, void* q, void* sc, int M, int K, stream_t stream,
                               Pdl pdl = Pdl::automatic);
// The order a dtype's one-byte GEMM with config `cfg` reads q in: natural, or the sm90a order
// (every sm90a config of w4a8 and w4a8fp8: kernels/config.hpp act_order). q keeps its M * K
// bytes, but not its rows: within every 64-byte block of a row the dword of k, 4t + c, moves to
// dword 4c + t (a 4 x 4 dword transpose), and the rows are interleaved chunk-major: the 16-byte
// chunk q of row n's 128-K group g lies at byte 16 (M (8 g + q) + n)
// (kernels/nv/wgmma_layout_sm90a.h act_offset_8), so that the kernel bulk-copies its wgmma
// operand tile as is. sm90a_mx is its twin for gemm_mxfp4a8fp8_nt's sm90a configs (another dword
// permutation within each 64-byte block, act_offset_mx: the MXFP4 layout's k map). Treat them as
// opaque: r4d::gemm pairs them itself.
enum class ActOrder : int { natural = 0, sm90a = 1, sm90a_mx = 2 };
[[nodiscard]] ActOrder act_order(Dtype d, const Config& cfg);
// quant_act with q in `order` (sm90a: K a multiple of 128).
[[nodiscard]] Status quant_act(const void* a, void* q, void* sc, int M, int K, ActOrder order,
                               stream_t stream, Pdl pdl = Pdl::automatic);

// The fp8-activation GEMMs (sm_89+; issue 13): C[M, N] bf16 = diag(sc) q[M, K] e4m3 x W^T, W the
// int4 g128 weight in the sm80 layout (gemm_w4a8fp8_nt: GPTQ / AutoRound symmetric after
// `r4tune quant gptq`, or any int4 g128 pack) or MXFP4 in the mx_sm89 layout
// (gemm_mxfp4a8fp8_nt: quant/layout/mx_sm89.h). Alignment as gemm_w4a8_nt.
[[nodiscard]] Status gemm_w4a8fp8_nt(const void* q, const void* sc, const void* wq, const void* wsz,
                                     void* c, int M, int K, int N, const Config& cfg,
                                     stream_t stream, Pdl pdl = Pdl::automatic);
[[nodiscard]] Status gemm_mxfp4a8fp8_nt(const void* q, const void* sc, const void* wq,
                                        const void* wsz, void* c, int M, int K, int N,
                                        const Config& cfg, stream_t stream,
                                        Pdl pdl = Pdl::automatic);
// q[M, K] OCP e4m3, sc[M] f32 = amax / 448 per row of A[M, K] bf16 (kernels/quant_act_fp8.cu);
// q natural, or in `order` (as quant_act: an sm90a gemm_w4a8fp8_nt config reads ActOrder::sm90a,
// an sm90a gemm_mxfp4a8fp8_nt config ActOrder::sm90a_mx).
[[nodiscard]] Status quant_act_fp8(const void* a, void* q, void* sc, int M, int K, stream_t stream,
                                   Pdl pdl = Pdl::automatic);
[[nodiscard]] Status quant_act_fp8(const void* a, void* q, void* sc, int M, int K, ActOrder order,
                                   stream_t stream, Pdl pdl = Pdl::automatic);
// Whether `device` (registered by init) can run dtype `d` in this build: the fp8 dtypes need
// compute capability 8.9+ and compiled kernels; false for an unregistered device.
[[nodiscard]] bool dtype_supported(Dtype d, int device);

// The seeds' _W4LinearMethod._run: A[M, K] bf16. Above a8_m() rows and with a w4a8 row for the
// shape: quant_act into the registered scratch, then gemm_w4a8_nt. Otherwise the w4a16 table's
// config and gemm_w4a16_nt_bf16. The band's config in either generation (an sm90a band on a
// device other than cc 9.0 refuses, invalid_config). A declined lookup returns its reason and
// launches nothing.
// `pdl` applies to each kernel it launches.
[[nodiscard]] Status gemm(const void* a_bf16, const void* wq, const void* wsz, void* c, int M,
                          int K, int N, stream_t stream, Pdl pdl = Pdl::automatic);
// The same for a checkpoint format: w4a16 / w4a8 as above (the int4 pair), w4a8fp8 and
// mxfp4a8fp8: quant_act_fp8 into the registered scratch, then the dtype's table config (a decline
// returns its reason: the caller takes another path above the table, as seeds 002 / 003 do).
[[nodiscard]] Status gemm(const void* a_bf16, const void* wq, const void* wsz, void* c, int M,
                          int K, int N, Dtype d, stream_t stream, Pdl pdl = Pdl::automatic);

// The configs compiled into this build for a dtype, both generations (w4a16: the f16-A and
// bf16-A kernels are compiled for the same set), in the order CMake generated them.
[[nodiscard]] std::vector<Config> compiled_configs(Dtype d);
// True when this build carries kernels (R4D_BUILD_KERNELS=ON).
[[nodiscard]] bool has_kernels();
// True when this build compiles the table rows of kernel generation `gen`: kGenMmaSync whenever
// it has kernels; kGenSm90a when built with R4D_SM90A (on by default with CUDA 12.0 or newer).
// Without it, an sm90a band's config is still handed out by config_for and its launch refuses
// (not_compiled).
[[nodiscard]] bool has_generation(int gen);

}  // namespace r4d
