// The launch surface of an r4d built without kernels (R4D_BUILD_KERNELS=OFF, or no nvcc): the
// tables, config_for, select and the counters work; every launch says no_kernels. No CUDA
// header or library is needed.
#include "detail.hpp"
#include "r4d/launch.hpp"

namespace r4d {
namespace {

Status refuse() {
  detail::bump(detail::Counter::refused);
  return Status::no_kernels;
}

}  // namespace

std::size_t workspace_bytes_required() {
  return 0;
}
bool has_kernels() {
  return false;
}
bool has_generation(int) {
  return false;
}
std::vector<Config> compiled_configs(Dtype) {
  return {};
}
Status register_workspace(int, void*, std::size_t) {
  return Status::no_kernels;
}
Status init(int) {
  return Status::no_kernels;
}
Status ensure_initialised(stream_t) {
  return Status::no_kernels;
}
void release(int) {}
bool pdl_supported(int) {
  return false;
}
bool uses_pdl(Pdl, int) {
  return false;
}

Status gemm_w4a16_nt(const void*, const void*, const void*, void*, int, int, int, const Config&,
                     stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a16_nt(const void*, const void*, const void*, void*, int, int, int, int, int, int,
                     int, int, stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a16_nt_bf16(const void*, const void*, const void*, void*, int, int, int,
                          const Config&, stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a8_nt(const void*, const void*, const void*, const void*, void*, int, int, int,
                    const Config&, stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a16_nt_bf16(const void*, const void*, const void*, void*, int, int, int, int, int,
                          int, int, int, stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a8_nt(const void*, const void*, const void*, const void*, void*, int, int, int, int,
                    int, int, int, int, stream_t, Pdl) {
  return refuse();
}
Status quant_act(const void*, void*, void*, int, int, stream_t, Pdl) {
  return refuse();
}
Status quant_act(const void*, void*, void*, int, int, ActOrder, stream_t, Pdl) {
  return refuse();
}
Status gemm(const void*, const void*, const void*, void*, int, int, int, stream_t, Pdl) {
  return refuse();
}
Status gemm(const void*, const void*, const void*, void*, int, int, int, Dtype, stream_t, Pdl) {
  return refuse();
}
Status gemm_w4a8fp8_nt(const void*, const void*, const void*, const void*, void*, int, int, int,
                       const Config&, stream_t, Pdl) {
  return refuse();
}
Status gemm_mxfp4a8fp8_nt(const void*, const void*, const void*, const void*, void*, int, int, int,
                          const Config&, stream_t, Pdl) {
  return refuse();
}
Status quant_act_fp8(const void*, void*, void*, int, int, stream_t, Pdl) {
  return refuse();
}
Status quant_act_fp8(const void*, void*, void*, int, int, ActOrder, stream_t, Pdl) {
  return refuse();
}
bool dtype_supported(Dtype, int) {
  return false;
}

std::span<const detail::CompiledKernel> detail::compiled_kernels() {
  return {};
}

}  // namespace r4d
