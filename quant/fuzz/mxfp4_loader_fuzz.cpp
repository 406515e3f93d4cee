// libFuzzer target for the MXFP4 / NVFP4 checkpoint loader: the input is a safetensors file, run
// through what `r4tune quant mxfp4 --layout mx_sm89` runs up to the write (parse_safetensors,
// plan_mxfp4, convert_mxfp4, pack_mx_sm89_checked where N % 16 == 0 and K % 64 == 0, as the CLI
// would refuse the others, add_mxfp4_tensors, serialize). The exponent rule is taken from the
// input's size (mse, ocp, noclip in turn). Any input must either convert or throw FormatError
// (CheckpointError included); nothing else: no other exception, no sanitizer report. A converted
// tensor must have N*K/2 codes and N*K/32 exponents, none of them 255 (NaN), and its packed form
// must unpack to the same codes and exponents.
// Built only with -DR4_FUZZ=ON and clang; seed corpus in quant/fuzz/corpus_mxfp4/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>

#include "quant/checkpoint.hpp"
#include "quant/pack_mx.hpp"
#include "quant/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace q = r4::quant;
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  constexpr q::ExpRule kRules[] = {q::ExpRule::mse, q::ExpRule::ocp, q::ExpRule::noclip};
  const q::ExpRule rule = kRules[size % 3];
  q::SafetensorsWriter w;
  std::size_t count = 0;
  try {
    const auto parsed = q::parse_safetensors(file);
    for (const auto& s : q::plan_mxfp4(parsed)) {
      const auto r = q::convert_mxfp4(s, rule);
      if (s.n <= 0 || s.k <= 0 || s.k % 32 != 0 ||
          static_cast<std::int64_t>(r.packed.size()) != s.n * s.k / 2 ||
          static_cast<std::int64_t>(r.e8m0.size()) != s.n * s.k / 32)
        std::abort();
      for (const auto e : r.e8m0)
        if (e == 255) std::abort();
      std::optional<q::Packed> packed;
      if (s.n % 16 == 0 && s.k % 64 == 0) {
        packed = q::pack_mx_sm89_checked(s.name, r, s.n, s.k);
        std::vector<std::uint8_t> codes(r.packed.size());
        std::vector<std::uint8_t> e8m0(r.e8m0.size());
        q::unpack_mx_sm89(*packed, s.n, s.k, codes, e8m0);
        if (codes != r.packed || e8m0 != r.e8m0) std::abort();
      }
      q::add_mxfp4_tensors(w, s.name, r, s.n, s.k, packed ? &*packed : nullptr);
      count += packed ? 4 : 2;
    }
  } catch (const q::FormatError&) {
    return 0;
  }
  const auto again = q::parse_safetensors(w.serialize());
  if (again.tensors.size() != count) std::abort();
  return 0;
}
