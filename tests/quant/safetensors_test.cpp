// safetensors reader/writer: a round trip, and every malformation the issue names refused with a
// FormatError whose message names the problem. Inputs are built here byte by byte.
#include "quant/safetensors.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

namespace r4::quant {
namespace {

std::vector<std::byte> file_of(const std::string& header, std::size_t data_bytes,
                               std::uint64_t declared_len = UINT64_MAX) {
  const std::uint64_t n = declared_len == UINT64_MAX ? header.size() : declared_len;
  std::vector<std::byte> f(8 + header.size() + data_bytes, std::byte{0});
  for (int i = 0; i < 8; ++i)
    f[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  std::memcpy(f.data() + 8, header.data(), header.size());
  return f;
}

std::string error_of(const std::vector<std::byte>& f) {
  try {
    (void)parse_safetensors(f);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Safetensors, RoundTripThroughAFile) {
  SafetensorsWriter w;
  const std::vector<float> a = {1.0F, -2.0F, 3.5F, 0.0F, 5.0F, 6.0F};
  const std::vector<std::uint32_t> b = {7U, 0xFFFFFFFFU};
  w.add_values<float>("a", DType::f32, {2, 3}, a);
  w.add_values<std::uint32_t>("b.wq", DType::u32, {2}, b);
  w.add("empty", DType::i8, {0, 4}, {});
  w.set_metadata("format", "pt");
  const auto path = std::filesystem::path(R4_BINARY_ROOT) / "safetensors_roundtrip.safetensors";
  w.write(path);
  const SafetensorsFile f(path);
  ASSERT_EQ(f.tensors().size(), 3U);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const auto& ta = f.at("a");
  EXPECT_EQ(ta.dtype, DType::f32);
  EXPECT_EQ(ta.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(ta.bytes.data(), a.data(), 24), 0);
  EXPECT_EQ(f.at("b.wq").numel(), 2);
  EXPECT_EQ(f.at("empty").bytes.size(), 0U);
  EXPECT_EQ(f.find("nope"), nullptr);
  EXPECT_THROW((void)f.at("nope"), FormatError);
  EXPECT_THROW((void)f.at("b.wq").matrix(), FormatError);
}

TEST(Safetensors, RefusesMalformedFilesNamingTheProblem) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  EXPECT_EQ(error_of(file_of(ok, 8)), "(accepted)");
  struct Case {
    std::vector<std::byte> file;
    const char* needle;
  };
  const Case cases[] = {
      {std::vector<std::byte>(5), "truncated"},
      {file_of(ok, 8, 1ULL << 40), "exceeds"},
      {file_of(ok, 8, ok.size() + 100), "runs past the end"},
      {file_of(ok, 4), "past the end of the data section"},
      {file_of(ok, 12), "trailing or missing"},
      {file_of("[1,2]", 0), "not a JSON object"},
      {file_of("{\"a\":", 0), "not valid JSON"},
      {file_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "disagrees"},
      {file_of(R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", 8), "unknown dtype"},
      {file_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), "non-negative"},
      {file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8), "unsorted"},
      {file_of(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
               R"("b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})",
               6),
       "overlap"},
      {file_of(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
               R"("a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})",
               4),
       "duplicate tensor name 'a'"},
      {file_of(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4), "gap"},
      {file_of(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", 4),
       "disagrees"},
      {file_of(R"({"a":7})", 0), "not a JSON object"},
      {file_of(R"({"__metadata__":{"k":1}})", 0), "not a string"},
      {file_of(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0]}})", 1), "[begin, end]"},
  };
  for (const auto& c : cases) {
    const auto msg = error_of(c.file);
    EXPECT_NE(msg.find(c.needle), std::string::npos) << "wanted '" << c.needle << "', got: " << msg;
  }
}

TEST(Safetensors, MissingFileIsASystemError) {
  EXPECT_THROW(SafetensorsFile("/nonexistent/x.safetensors"), std::system_error);
}

}  // namespace
}  // namespace r4::quant
