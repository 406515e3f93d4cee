// libFuzzer target for the GPTQ / AutoRound checkpoint loader: the input is a safetensors file,
// run through what `r4tune quant gptq` runs up to the write (parse_safetensors, load_gptq,
// add_gptq_tensors, serialize). Any input must either convert or throw FormatError (of which
// CheckpointError is one); nothing else: no other exception, no sanitizer report. A converted
// linear must be self-consistent: sizes N*K/8 and K/128*N, finite f16 scales, a dequantised
// weight in range, and the output must parse back with the shapes written.
// Built only with -DR4_FUZZ=ON and clang; seed corpus in quant/fuzz/corpus_gptq/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "quant/checkpoint.hpp"
#include "quant/gptq.hpp"
#include "quant/numeric.hpp"
#include "quant/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace q = r4::quant;
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  std::vector<q::GptqLinear> linears;
  q::SafetensorsWriter w;
  try {
    const auto parsed = q::parse_safetensors(file);
    linears = q::load_gptq(parsed);
    for (const auto& l : linears) q::add_gptq_tensors(w, l);
  } catch (const q::FormatError&) {
    return 0;
  }
  for (const auto& l : linears) {
    if (l.n <= 0 || l.k <= 0 || l.k % q::kGptqGroup != 0 || l.n % q::kGptqPack != 0 ||
        static_cast<std::int64_t>(l.qweight_t.size()) != l.n * l.k / q::kGptqPack ||
        static_cast<std::int64_t>(l.scales.size()) != l.k / q::kGptqGroup * l.n)
      std::abort();
    // |code - 8| <= 8 times a finite f16 scale (at most 65504): always finite.
    for (const float v : q::dequant_gptq(l.qweight_t, l.scales, l.n, l.k))
      if (!std::isfinite(v)) std::abort();
  }
  const auto again = q::parse_safetensors(w.serialize());
  if (again.tensors.size() != 2 * linears.size()) std::abort();
  return 0;
}
