// Real NVRTC compiles (no GPU needed) through the pool, with an in-memory cache standing in for
// the database's compiles table.
#include "tuner/tune/compile_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>

namespace r4::tune {

namespace {
std::vector<gpu::CompileRequest> requests(int n) {
  std::vector<gpu::CompileRequest> out;
  for (int i = 0; i < n; ++i) {
    gpu::CompileRequest r;
    r.source = "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] *= SCALE; }";
    r.source_name = "k.cu";
    r.arch = gpu::Arch::from("sm_90");
    r.defines = {"SCALE=" + std::to_string(i + 1)};
    out.push_back(r);
  }
  out.back().source = "this does not compile";
  return out;
}
}  // namespace

TEST(CompilePool, CompilesInParallelThenServesTheCache) {
  auto be = gpu::make_cuda_backend();
  std::map<std::string, gpu::CompileResult> store;
  CompileCache cache{[&](const std::string& k) -> std::optional<gpu::CompileResult> {
                       auto it = store.find(k);
                       if (it == store.end()) return std::nullopt;
                       return it->second;
                     },
                     [&](const std::string& k, const gpu::CompileResult& r) { store[k] = r; }};
  const auto reqs = requests(6);
  std::size_t seen = 0;
  auto first =
      compile_all(*be, reqs, cache, 2, [&](std::size_t, const CompileOutcome&) { ++seen; });
  EXPECT_EQ(seen, reqs.size());
  ASSERT_EQ(first.size(), reqs.size());
  for (std::size_t i = 0; i + 1 < reqs.size(); ++i) {
    EXPECT_TRUE(first[i].result.ok) << first[i].result.log;
    EXPECT_FALSE(first[i].from_cache);
  }
  EXPECT_FALSE(first.back().result.ok);
  EXPECT_EQ(store.size(), reqs.size());  // failures are cached too: never re-run a known-bad one
  // Distinct defines give distinct keys.
  EXPECT_NE(first[0].key, first[1].key);

  auto second = compile_all(*be, reqs, cache, 2);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_TRUE(second[i].from_cache);
    EXPECT_EQ(second[i].key, first[i].key);
    EXPECT_EQ(second[i].result.binary, first[i].result.binary);
  }
}

// Requests that differ only in their launch_key (the SKs of one split-K body: kernels/config.hpp
// sk_define) have keys of their own but compile once; a request without one keeps the body key as
// its key, the key it had before launch keys existed.
TEST(CompilePool, ALaunchKeyKeysApartButCompilesOnce) {
  auto be = gpu::make_cuda_backend();
  auto reqs = requests(3);
  reqs.pop_back();  // the one that does not compile
  reqs.push_back(reqs[0]);
  reqs.push_back(reqs[0]);
  reqs[0].launch_key = "sk=2";
  reqs[2].launch_key = "sk=4";
  reqs[3].launch_key = "sk=8";
  const std::string v = be->compiler_version();
  EXPECT_EQ(compile_key(reqs[1], v), compile_body_key(reqs[1], v));
  EXPECT_EQ(compile_body_key(reqs[0], v), compile_body_key(reqs[3], v));
  EXPECT_NE(compile_key(reqs[0], v), compile_key(reqs[2], v));
  EXPECT_NE(compile_key(reqs[0], v), compile_body_key(reqs[0], v));
  std::map<std::string, gpu::CompileResult> store;
  CompileCache cache{nullptr,
                     [&](const std::string& k, const gpu::CompileResult& r) { store[k] = r; }};
  std::vector<std::size_t> order;
  const auto out = compile_all(*be, reqs, cache, 2, [&](std::size_t i, const CompileOutcome& o) {
    EXPECT_TRUE(o.result.ok) << o.result.log;
    order.push_back(i);
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_FALSE(out[0].shared_body);
  EXPECT_FALSE(out[1].shared_body);
  for (std::size_t i : {2u, 3u}) {
    EXPECT_TRUE(out[i].shared_body) << i;
    EXPECT_EQ(out[i].result.seconds, 0.0);
    EXPECT_EQ(out[i].result.binary, out[0].result.binary);
    EXPECT_EQ(out[i].key, compile_key(reqs[i], v));
  }
  EXPECT_GT(out[0].result.seconds, 0.0);
  EXPECT_EQ(store.size(), 4u);  // a row per request
  // A sharer is reported right after the request it shares with.
  const auto at = [&](std::size_t i) { return std::find(order.begin(), order.end(), i); };
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(at(2), at(0) + 1);
  EXPECT_EQ(at(3), at(0) + 2);
}

TEST(CompilePool, KeyDependsOnCompilerAndHeaders) {
  auto r = requests(1).front();
  const auto a = compile_key(r, "nvrtc 13.0");
  EXPECT_NE(a, compile_key(r, "nvrtc 13.1"));
  r.headers.push_back({"x.h", "int x;"});
  EXPECT_NE(a, compile_key(r, "nvrtc 13.0"));
}

}  // namespace r4::tune

namespace r4::tune {

// A sweep that stops while its compile stage runs beside the races cancels the rest: the
// compiles already started end and are reported, no further one starts.
TEST(CompilePool, CancelStopsStartingCompiles) {
  auto be = gpu::make_cuda_backend();
  auto reqs = requests(40);
  reqs.back() = reqs.front();  // compiles (requests() ends with one that does not)
  reqs.back().defines = {"SCALE=99"};
  std::atomic<bool> cancel{false};
  std::size_t seen = 0;
  const auto out = compile_all(
      *be, reqs, CompileCache{}, 1,
      [&](std::size_t i, const CompileOutcome& o) {
        EXPECT_TRUE(o.result.ok) << i << ": " << o.result.log;
        if (++seen == 2) cancel = true;
      },
      &cancel);
  EXPECT_GE(seen, 2u);
  EXPECT_LT(seen, reqs.size());  // one thread: at most the one in flight after the second
  EXPECT_LE(seen, 3u);
  ASSERT_EQ(out.size(), reqs.size());
  EXPECT_TRUE(out.back().result.binary.empty());  // never started
}

}  // namespace r4::tune
