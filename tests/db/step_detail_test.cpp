// The steps row's detail JSON: what the sweep writes the reports read back, and anything else
// (plain text, other JSON) reads as a reason without throwing.
#include "db/step_detail.hpp"

#include <gtest/gtest.h>

namespace r4::db {
namespace {

TEST(StepDetail, RoundTrips) {
  StepDetail d;
  StepLink a;
  a.shape = "qkv_proj";
  a.n = 3072;
  a.k = 5120;
  a.kernel = "gemm_w4a8_nt";
  a.dtype = "w4a8";
  a.generation = "sm80";
  a.config = {2, 1, 1, 4, 1};
  StepLink b;
  b.shape = "o_proj";
  b.n = 5120;
  b.k = 2048;
  b.kernel = "cublaslt_bf16";
  b.dtype = "bf16";
  b.algo = "algo 23 tile 64x128";
  d.chain = {a, b, a};
  const std::string text = step_detail_json(d);
  EXPECT_EQ(text.rfind(R"({"chain":[{"shape":"qkv_proj","n":3072,"k":5120,"kernel":"gemm_w4a8_nt",)"
                       R"("dtype":"w4a8","generation":"sm80","config":[2,1,1,4,1],"algo":""})",
                       0),
            0u)
      << text;
  EXPECT_EQ(text.substr(text.size() - 13), R"(],"error":""})");
  const StepDetail back = parse_step_detail(text);
  ASSERT_EQ(back.chain.size(), 3u);
  EXPECT_EQ(back.chain[0].config, a.config);
  EXPECT_EQ(back.chain[1].algo, b.algo);
  EXPECT_EQ(back.chain[2].shape, "qkv_proj");
  EXPECT_EQ(back.chain[1].n, 5120);
  EXPECT_TRUE(back.error.empty());
  EXPECT_EQ(step_detail_json(back), text);
}

TEST(StepDetail, AnythingElseIsReadWithoutThrowing) {
  EXPECT_EQ(parse_step_detail("worker died: CUDA_ERROR_ILLEGAL_ADDRESS").error,
            "worker died: CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_TRUE(parse_step_detail("").chain.empty());
  EXPECT_EQ(parse_step_detail(R"({"error": "verify failed at o_proj"})").error,
            "verify failed at o_proj");
  const auto partial = parse_step_detail(R"({"chain": [{"shape": "x"}, 3, {"n": "bad"}]})");
  ASSERT_EQ(partial.chain.size(), 2u);  // non-objects are skipped, missing keys default
  EXPECT_EQ(partial.chain[0].shape, "x");
  EXPECT_EQ(partial.chain[1].n, 0);
  EXPECT_EQ(parse_step_detail("[1, 2]").error, "[1, 2]");
}

}  // namespace
}  // namespace r4::db
