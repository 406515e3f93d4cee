// SHA-256 (FIPS 180-4) for content keys: kernel source hashes and compile-cache keys. Written
// here to avoid a crypto dependency for what is a fingerprint, not a security boundary.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace r4::tune {

class Sha256 {
 public:
  Sha256& update(std::string_view data);
  // Separates fields so ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view data);
  [[nodiscard]] std::string hex();  // finalises

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

[[nodiscard]] std::string sha256_hex(std::string_view data);

}  // namespace r4::tune
