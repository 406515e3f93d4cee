// Host-side API of the kernel family: stable names, run-time compile requests (sources from the
// binary's embedded copies, config as -D defines), launch geometry, workspace sizes and typed
// launchers. Used by the tuner, the tests and the r4kern driver. Launchers do not allocate.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "kernels/config.hpp"
#include "tuner/gpu/backend.hpp"

namespace r4::kernels {

// Stable names (database keys: renaming one is a migration).
[[nodiscard]] std::string_view name(KernelId id);
[[nodiscard]] std::optional<KernelId> parse_kernel(std::string_view name);

struct CompileOptions {
  bool a_bf16 = false;        // gemm_w4a16_nt: A is bf16 instead of f16
  bool broken_scale = false;  // TEST ONLY: a deliberately wrong kernel (next group's scale)
  int test_fault = 0;         // TEST ONLY: 1 writes out of bounds, 2 never returns (R4_TEST_FAULT)
};

// The run-time compile of one kernel/config for one arch. Throws std::invalid_argument when
// is_valid(id, c, arch) is false.
[[nodiscard]] gpu::CompileRequest compile_request(KernelId id, const Config& c,
                                                  const gpu::Arch& arch,
                                                  const CompileOptions& opt = {});

struct LaunchDims {
  gpu::Dim3 grid;
  gpu::Dim3 block;
  unsigned shared_bytes = 0;    // dynamic shared memory: the double-buffered activation chunks
  gpu::Dim3 cluster{1, 1, 1};   // (1, SK, 1) where splitk_cluster (kernels/config.hpp)
  unsigned cluster_shared = 0;  // the part of shared_bytes only a cluster launch needs
  // The sm90a generation: launch_raw raises shared_bytes for the kernel's device, so that an SM
  // holds no more CTAs than one wave of the grid needs (kernels/config.hpp
  // sm90a_wave_shared_bytes).
  bool wave_shared = false;
};
[[nodiscard]] LaunchDims launch_dims(KernelId id, const Config& c, const gpu::Arch& arch,
                                     const Shape& s);

// Whether a launch with these dims goes out as a cluster: dims.cluster names one and the device
// holds all of the grid's clusters at once (gpu::Kernel::max_active_clusters). Otherwise the
// launchers send it plainly, without cluster_shared, and the kernel reduces through the
// workspace (kernels/splitk.h takes its cluster path only inside a cluster of SK blocks).
[[nodiscard]] bool cluster_launch(gpu::Kernel& k, const LaunchDims& d);

// Bytes of split-K workspace a launch needs: 0 when SK == 1, else 64 KiB of tile counters plus
// SK*M*N f32 partials. Zero it once when allocating; launches leave the counters at zero. One
// workspace serves every shape whose need it covers, as long as launches using it are ordered
// (one stream).
[[nodiscard]] std::size_t workspace_bytes(KernelId id, const Config& c, const Shape& s);

// Bytes of packed weight + scale dwords for (N, K): N*K/2 + N*K/128*4.
[[nodiscard]] std::int64_t weight_bytes(std::int64_t n, std::int64_t k);

struct W4Weights {
  gpu::DevicePtr wq = 0;   // N*K/8 dwords in the arch's layout
  gpu::DevicePtr wsz = 0;  // (N/16)*(K/128)*16 scale dwords
};

// Launchers take gpu::LaunchOptions: `pdl` launches with programmatic dependent launch where the
// device has it (gpu::has_pdl; the kernels stream weights before their griddepcontrol.wait and
// touch activations, outputs and the workspace only after it: kernels/gemm_common.h). Two
// launches that may overlap under PDL may still share a split-K workspace: a kernel touches it
// only after its wait, i.e. after the previous kernel has completed.
// C (bf16 [M, N]) = A (f16/bf16 [M, K]) x W^T.
void launch_gemm_w4a16(gpu::Kernel& k, const Config& c, const gpu::Arch& arch, const Shape& s,
                       gpu::DevicePtr a, const W4Weights& w, gpu::DevicePtr out,
                       gpu::DevicePtr workspace, gpu::Stream& stream,
                       const gpu::LaunchOptions& opt = {});
// C (bf16 [M, N]) = diag(sa) Aq (int8 [M, K]) x W^T.
void launch_gemm_w4a8(gpu::Kernel& k, const Config& c, const gpu::Arch& arch, const Shape& s,
                      gpu::DevicePtr aq, gpu::DevicePtr sa, const W4Weights& w, gpu::DevicePtr out,
                      gpu::DevicePtr workspace, gpu::Stream& stream,
                      const gpu::LaunchOptions& opt = {});
// Any one-byte-activation GEMM: gemm_w4a8_nt (int8 Aq), gemm_w4a8fp8_nt (e4m3 Aq, int4 W in
// the arch's layout), gemm_mxfp4a8fp8_nt (e4m3 Aq, MXFP4 W in the mx_sm89 layout); same arguments.
void launch_gemm_a8(KernelId id, gpu::Kernel& k, const Config& c, const gpu::Arch& arch,
                    const Shape& s, gpu::DevicePtr aq, gpu::DevicePtr sa, const W4Weights& w,
                    gpu::DevicePtr out, gpu::DevicePtr workspace, gpu::Stream& stream,
                    const gpu::LaunchOptions& opt = {});
// Aq (e4m3 [M, K]), sa (f32 [M]) = quant_act_fp8(A (bf16 [M, K])), kernels/quant_act_fp8.cu, Aq's
// rows in `order`: act_order(gemm id, config) of the GEMM that reads them (kernels/config.hpp).
void launch_quant_act_fp8(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                          gpu::DevicePtr sa, ActOrder order, gpu::Stream& stream,
                          const gpu::LaunchOptions& opt = {});
// Aq (int8 [M, K]), sa (f32 [M]) = quant_act(A (bf16 [M, K])), Aq's rows in `order` (as above).
void launch_quant_act(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                      gpu::DevicePtr sa, ActOrder order, gpu::Stream& stream,
                      const gpu::LaunchOptions& opt = {});
// How a one-byte-activation GEMM is launched right after its quantiser, wherever the two run as
// one call (the races, the verifier, r4kern, r4d_bench; r4d's default Pdl::automatic does the
// same): under PDL where the device has it (gpu::has_pdl) and the config allows it at M
// (pdl_allowed: not a balanced grid above M = 8), so the GEMM's weight prologue overlaps the
// quantiser and its griddepcontrol.wait orders the activation reads; plain elsewhere. The quantiser
// itself launches plainly (the races' solo times; steps time PDL between GEMMs).
[[nodiscard]] gpu::LaunchOptions a8_gemm_options(const gpu::Arch& arch, const Config& c,
                                                 std::int64_t m);

// The block-fp8 baseline's activation quantiser (kernels/quant_fp8_block.cu): A (bf16 [M, K]) ->
// Aq (e4m3 [M, K]) and s (f32 [K/128][M]); what a block-fp8 decode step runs between GEMMs.
[[nodiscard]] gpu::CompileRequest quant_fp8_block_compile_request(const gpu::Arch& arch);
void launch_quant_fp8_block(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                            gpu::DevicePtr scales, gpu::Stream& stream);

// The GPU reference / check / bandwidth kernels (kernels/reference_gpu.cu).
[[nodiscard]] gpu::CompileRequest reference_compile_request(const gpu::Arch& arch);

// Every kernel of the family, in KernelId order: what CI compiles for each arch (with
// config_space), so a kernel added to the family is covered without touching the tests.
[[nodiscard]] std::span<const KernelId> all_kernels();
// The source variants a kernel is built in besides its config: {} and, for gemm_w4a16_nt, bf16
// activations.
[[nodiscard]] std::vector<CompileOptions> compile_variants(KernelId id);

// kernels/quant_act_fp8.cu for `arch` (the fp8-activation GEMMs' activation quantiser; timed with
// them in every race, as quant_act with gemm_w4a8_nt).
[[nodiscard]] gpu::CompileRequest quant_act_fp8_compile_request(const gpu::Arch& arch);

}  // namespace r4::kernels
