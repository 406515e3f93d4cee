// libFuzzer target for the safetensors parser: any input either parses or throws FormatError;
// nothing else (no other exception, no sanitizer report). A parsed file is re-serialised and
// parsed again, and must come back with the same names, dtypes, shapes and bytes.
// Built only with -DR4_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++; seed corpus in quant/fuzz/corpus/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "quant/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  r4::quant::Parsed p;
  try {
    p = r4::quant::parse_safetensors(file);
  } catch (const r4::quant::FormatError&) {
    return 0;
  }
  r4::quant::SafetensorsWriter w;
  for (const auto& [k, v] : p.metadata) w.set_metadata(k, v);
  for (const auto& t : p.tensors)
    w.add(t.name, t.dtype, t.shape, std::vector<std::byte>(t.bytes.begin(), t.bytes.end()));
  const auto again = w.serialize();
  const auto q = r4::quant::parse_safetensors(again);
  if (q.tensors.size() != p.tensors.size() || q.metadata != p.metadata) std::abort();
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const auto& a = p.tensors[i];
    // Zero-size tensors share an offset, so their relative order may change: match by name.
    const r4::quant::TensorInfo* b = nullptr;
    for (const auto& t : q.tensors)
      if (t.name == a.name) b = &t;
    if (b == nullptr || b->dtype != a.dtype || b->shape != a.shape ||
        b->bytes.size() != a.bytes.size() ||
        (!a.bytes.empty() && std::memcmp(b->bytes.data(), a.bytes.data(), a.bytes.size()) != 0))
      std::abort();
  }
  return 0;
}
