// Parallel run-time compiles with a content-addressed cache (DESIGN.md "compile"): all cores, and
// a compile already cached under the same (source hash, arch, options, compiler version) key is
// not repeated.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tuner/gpu/backend.hpp"

namespace r4::tune {

// The compiler's input: sha256 over the source, every in-memory header (name and text), the arch,
// the defines and extra options, and the compiler identity. Requests with the same body key
// compile to the same binary.
[[nodiscard]] std::string compile_body_key(const gpu::CompileRequest& req,
                                           const std::string& compiler_version);
// The cache key of a body key and a request's launch_key: the body key itself without one (so a
// request that has none keeps the key it had before launch keys existed), else a hash of both.
[[nodiscard]] std::string launch_keyed(const std::string& body_key, const std::string& launch_key);
// The cache key: launch_keyed(compile_body_key(req), req.launch_key).
[[nodiscard]] std::string compile_key(const gpu::CompileRequest& req,
                                      const std::string& compiler_version);

struct CompileOutcome {
  std::string key;
  gpu::CompileResult result;
  bool from_cache = false;
  // The result is a copy of an earlier request's in the same call, whose body key it shares
  // (result.seconds is then 0: the compile's time is counted once, on that request).
  bool shared_body = false;
};

// The cache: `find` may return a stored result for a key; `store` is called once per fresh
// compile, from the calling thread of compile_all (never concurrently).
struct CompileCache {
  std::function<std::optional<gpu::CompileResult>(const std::string& key)> find;
  std::function<void(const std::string& key, const gpu::CompileResult&)> store;
  // The requests' keys when already known (set_keys), else compile_all computes them.
  const std::vector<std::string>* keys = nullptr;
  // Likewise their body keys (compile_body_key).
  const std::vector<std::string>* body_keys = nullptr;
};

// Compiles every request (in parallel on `threads` threads; 0 = all cores); results keep the
// order of `requests`, and they are started in that order. A request not in the cache whose body
// key an earlier one has is not compiled: it gets that one's result (shared_body), right after
// it. `on_done(i, outcome)` runs on the calling thread as results arrive. Once `*cancel` is set no
// further compile is started; those left out get no on_done and an empty result.
[[nodiscard]] std::vector<CompileOutcome> compile_all(
    gpu::Backend& backend, const std::vector<gpu::CompileRequest>& requests,
    const CompileCache& cache, int threads,
    const std::function<void(std::size_t, const CompileOutcome&)>& on_done = {},
    const std::atomic<bool>* cancel = nullptr);

}  // namespace r4::tune
