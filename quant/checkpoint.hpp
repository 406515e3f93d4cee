// Checkpoint loaders: what `r4tune quant gptq` and `r4tune quant mxfp4` (and the int4 input
// checks) run on a parsed safetensors file before anything is written. One place for every
// refusal, so the CLI, the fuzz targets (quant/fuzz/) and the Python layer (r4d.torch, through
// pybind) refuse the same inputs with the same words.
//
// Errors: a malformed file is FormatError (safetensors.hpp); a well-formed file whose content the
// formats or kernels cannot take is CheckpointError, a FormatError that also carries the name of
// the tensor at fault (`tensor()`, empty only for a whole-file problem) and the kind of problem.
// Nothing else escapes these functions (the fuzz targets hold them to that), apart from
// std::bad_alloc.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "quant/mxfp4.hpp"
#include "quant/pack.hpp"
#include "quant/safetensors.hpp"

namespace r4::quant {

enum class CheckpointProblem {
  missing,     // a companion tensor (scales, qzeros, weight_scale, ...) is absent
  dtype,       // wrong element type
  shape,       // wrong rank, empty, or shapes that disagree with each other
  group_size,  // a GPTQ group size other than 128 (scales' shape or the metadata says so)
  asymmetric,  // GPTQ qzeros not all 0x77777777
  k_multiple,  // K not a multiple of what the format or layout needs (32 for MXFP4 / NVFP4)
  non_finite,  // NaN or inf in a weight or a scale
  layout,      // the packed layout cannot hold the values (an e8m0 exponent beyond the kernel's)
  name_clash,  // two inputs would write the same output name (X.weight_packed and X.weight)
  metadata,    // __metadata__ says bits != 4, or its quantization_config is not a JSON object
};
[[nodiscard]] std::string_view to_string(CheckpointProblem p);

struct CheckpointError : FormatError {
  // what() is "'tensor': message" (just "message" when tensor is empty).
  CheckpointError(CheckpointProblem problem, std::string tensor, const std::string& message);
  [[nodiscard]] const std::string& tensor() const noexcept { return tensor_; }
  [[nodiscard]] CheckpointProblem problem() const noexcept { return problem_; }

 private:
  CheckpointProblem problem_;
  std::string tensor_;
};

// Throws CheckpointError(non_finite) naming t and the first NaN / inf element ([row, col] for a
// 2-D tensor, else the flat index) as read in f32 (F64 values beyond the f32 range count as inf).
// F32 F64 F16 BF16 F8_E4M3; other dtypes pass.
void require_finite(const TensorInfo& t);

// ---- floating weights (int4, mxfp4) ----

// A 2-D weight to quantise: a floating tensor, or an F8_E4M3 one with its scale companion
// (T_scale_inv, else T_scale).
struct WeightRef {
  const TensorInfo* tensor = nullptr;
  const TensorInfo* scale = nullptr;  // fp8 companion, else nullptr
};
struct WeightSelection {
  std::vector<WeightRef> weights;
  std::vector<std::string> skipped;  // F8_E4M3 tensors without a companion
};
// Tensor names a caller wants (empty function: all).
using TensorFilter = std::function<bool(const std::string&)>;

// The 2-D floating tensors of `file` (F8_E4M3 ones with a companion), minus the companions and
// the names in `skip`, in file order; each weight and companion is checked finite.
[[nodiscard]] WeightSelection select_weights(const Parsed& file, const TensorFilter& select = {},
                                             const std::vector<std::string>& skip = {});

// A selected weight as f32 [N, K]: rows loaded, or block-fp8 dequantised (the seed's
// _dequant_block_fp8; a [N, 1] companion is a per-channel scale). CheckpointError on a scale
// that does not fit.
[[nodiscard]] std::vector<float> weight_f32(const WeightRef& w);

// ---- GPTQ / AutoRound (seed 002) ----

// `__metadata__` of a GPTQ/AutoRound file: a "quantization_config" JSON object string, or flat
// "bits" / "group_size" / "sym" keys, when present, must say bits 4, group_size 128, sym true.
// CheckpointError (group_size / asymmetric / metadata) naming the metadata key otherwise.
void check_gptq_metadata(const std::map<std::string, std::string>& metadata);

struct GptqLinear {
  std::string name;                      // X, from X.qweight
  DType qweight_dtype = DType::i32;      // I32 or U32, as stored
  std::int64_t n = 0;                    // output features
  std::int64_t k = 0;                    // input features
  std::vector<std::uint32_t> qweight_t;  // [N, K/8], the kernel's order
  std::vector<std::uint16_t> scales;     // f16 bits [K/128, N], as stored
};

// Every X.qweight with X.scales and X.qzeros, checked in full before any is converted: the
// metadata, dtypes and shapes (qweight I32 [K/8, N], scales F16 [K/128, N], qzeros I32
// [K/128, N/8]), the group size implied by the scales, symmetry, finite scales. An empty result
// means the file has no '*.qweight' tensor.
[[nodiscard]] std::vector<GptqLinear> load_gptq(const Parsed& file);

// What `r4tune quant gptq` writes for one linear: X.qweight [N, K/8] (dtype as stored) and
// X.scales [K/128, N] F16 unchanged.
void add_gptq_tensors(SafetensorsWriter& w, const GptqLinear& l);

// ---- MXFP4 from NVFP4 triples and floating weights (seed 003) ----

struct Mxfp4Source {
  std::string name;  // the output tensor's name: X.weight for an NVFP4 triple, else T
  std::string kind;  // "NVFP4", "F8+scale", or the dtype ("BF16", ...)
  std::int64_t n = 0;
  std::int64_t k = 0;
  // NVFP4: X.weight_packed, X.weight_scale, X.weight_global_scale; else weight only.
  const TensorInfo* packed = nullptr;
  const TensorInfo* scale = nullptr;
  const TensorInfo* global_scale = nullptr;
  WeightRef weight;
};

// What `r4tune quant mxfp4` converts, all checked before any work: NVFP4 triples (U8 [N, K/2],
// F8_E4M3 [N, K/16], float global scales splitting N evenly, K % 32 == 0, finite non-zero
// global scales, no NaN e4m3 scale) first, then the other floating 2-D tensors (K % 32 == 0,
// finite). `select` sees X.weight for a triple and T otherwise. The outputs' names (T, T_scale,
// T.wq, T.wsz) must not clash: an NVFP4 X.weight_packed beside a float X.weight, or a float T
// beside a float T_scale, is CheckpointError (name_clash) naming the second.
[[nodiscard]] std::vector<Mxfp4Source> plan_mxfp4(const Parsed& file,
                                                  const TensorFilter& select = {});

// One planned tensor quantised to MXFP4 (the seed's quant_mxfp4; an NVFP4 triple is dequantised
// first, one global divisor per equal partition of N).
[[nodiscard]] Mxfp4Quantized convert_mxfp4(const Mxfp4Source& s, ExpRule rule);

// `r4tune quant mxfp4 --layout mx_sm89`: CheckpointError (shape) naming the tensor unless
// N % 16 == 0 and K % 64 == 0.
void check_mx_sm89_shape(const std::string& name, std::int64_t n, std::int64_t k);
// pack_mx_sm89 on one converted tensor; its refusals (an e8m0 exponent the kernel cannot fold)
// as CheckpointError naming the tensor.
[[nodiscard]] Packed pack_mx_sm89_checked(const std::string& name, const Mxfp4Quantized& q,
                                          std::int64_t n, std::int64_t k);

// What `r4tune quant mxfp4` writes for one tensor T: with the mx_sm89 layout T.wq and T.wsz (U32,
// flat, pack_mx_sm89's order), then T (U8 e2m1 codes [N, K/2]) and T_scale (U8 e8m0 [N, K/32]).
void add_mxfp4_tensors(SafetensorsWriter& w, const std::string& name, const Mxfp4Quantized& q,
                       std::int64_t n, std::int64_t k, const Packed* mx_sm89 = nullptr);

}  // namespace r4::quant
