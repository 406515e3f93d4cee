#include "db/sha256.hpp"

#include <string>

#include <gtest/gtest.h>

#include "db/store.hpp"

namespace r4::db {
namespace {

// FIPS 180-4 / NIST CAVP example vectors.
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CompileKey, StableAndFieldSeparated) {
  const auto a = compile_key("h", "sm_90", "-DX=1", "NVRTC 13.0");
  EXPECT_EQ(a, compile_key("h", "sm_90", "-DX=1", "NVRTC 13.0"));
  EXPECT_EQ(a.size(), 64u);
  // Moving a character between fields must change the key (length-prefixed fields).
  EXPECT_NE(compile_key("ab", "c", "", ""), compile_key("a", "bc", "", ""));
  EXPECT_NE(a, compile_key("h", "sm_90", "-DX=1", "NVRTC 13.1"));
  EXPECT_NE(a, compile_key("h", "sm_89", "-DX=1", "NVRTC 13.0"));
}

}  // namespace
}  // namespace r4::db
