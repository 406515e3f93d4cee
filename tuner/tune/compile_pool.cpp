#include "tuner/tune/compile_pool.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "db/sha256.hpp"

namespace r4::tune {

std::string compile_body_key(const gpu::CompileRequest& req, const std::string& compiler_version) {
  // Length-prefixed fields, so no two different requests concatenate to the same text.
  std::string text;
  auto field = [&text](std::string_view f) { text += fmt::format("{}:", f.size()).append(f); };
  field("r4tune-compile-v1");
  field(compiler_version);
  field(req.arch.name);
  field(req.source);
  for (const auto& [name, body] : req.headers) {
    field(name);
    field(body);
  }
  for (const auto& d : req.defines) field("-D" + d);
  for (const auto& i : req.include_dirs) field("-I" + i);
  for (const auto& o : req.extra_options) field(o);
  return db::sha256_hex(text);
}

std::string launch_keyed(const std::string& body_key, const std::string& launch_key) {
  if (launch_key.empty()) return body_key;
  return db::sha256_hex(fmt::format("r4tune-launch-v1:{}:{}", body_key, launch_key));
}

std::string compile_key(const gpu::CompileRequest& req, const std::string& compiler_version) {
  return launch_keyed(compile_body_key(req, compiler_version), req.launch_key);
}

std::vector<CompileOutcome> compile_all(
    gpu::Backend& backend, const std::vector<gpu::CompileRequest>& requests,
    const CompileCache& cache, int threads,
    const std::function<void(std::size_t, const CompileOutcome&)>& on_done,
    const std::atomic<bool>* cancel) {
  const std::string version = backend.compiler_version();
  std::vector<CompileOutcome> out(requests.size());
  // The requests to compile, each with those after it that share its body key.
  std::vector<std::size_t> todo;
  std::map<std::size_t, std::vector<std::size_t>> sharers;
  std::map<std::string, std::size_t> first_with_body;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const std::string body =
        cache.body_keys ? cache.body_keys->at(i) : compile_body_key(requests[i], version);
    out[i].key = cache.keys ? cache.keys->at(i) : launch_keyed(body, requests[i].launch_key);
    if (cache.find) {
      if (auto hit = cache.find(out[i].key)) {
        out[i].result = std::move(*hit);
        out[i].from_cache = true;
        if (on_done) on_done(i, out[i]);
        continue;
      }
    }
    const auto [it, fresh] = first_with_body.emplace(body, i);
    if (fresh)
      todo.push_back(i);
    else
      sharers[it->second].push_back(i);
  }
  if (todo.empty()) return out;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::size_t> finished;
  std::exception_ptr error;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (;;) {
      if (cancel && cancel->load()) return;
      const std::size_t j = next.fetch_add(1);
      if (j >= todo.size()) return;
      const std::size_t i = todo[j];
      try {
        out[i].result = backend.compile(requests[i]);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
      }
      {
        std::lock_guard lock(mu);
        finished.push_back(i);
      }
      cv.notify_one();
    }
  };
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = threads > 0 ? static_cast<unsigned>(threads) : hw;
  std::vector<std::jthread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(n, todo.size()); ++t) pool.emplace_back(work);
  for (std::size_t done = 0; done < todo.size();) {
    std::unique_lock lock(mu);
    // Polled, since whoever cancels does not know this condition variable.
    const bool cancelled = !cv.wait_for(lock, std::chrono::milliseconds(100), [&] {
      return !finished.empty();
    }) && cancel && cancel->load();
    if (cancelled) break;  // the compiles in flight end before the pool is joined below
    if (finished.empty()) continue;
    const std::size_t i = finished.front();
    finished.pop_front();
    lock.unlock();
    ++done;
    if (error) continue;
    if (cache.store) cache.store(out[i].key, out[i].result);
    if (on_done) on_done(i, out[i]);
    if (const auto sh = sharers.find(i); sh != sharers.end())
      for (std::size_t f : sh->second) {
        out[f].result = out[i].result;
        out[f].result.seconds = 0;
        out[f].shared_body = true;
        if (cache.store) cache.store(out[f].key, out[f].result);
        if (on_done) on_done(f, out[f]);
      }
  }
  pool.clear();
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace r4::tune
