// CI without a GPU: every valid config of both GEMMs (f16 and bf16 activations for w4a16)
// compiles with NVRTC for sm_90, a sample for sm_80, quant_act, the reference and floor kernels
// too, and no compile spills a register. Configs that share a body (SK 2, 4, 8: kernels/config.hpp
// sk_define) are compiled once. Compiles run on all cores (std::thread); the test prints
// its wall time. Measured 2026-11-30 on the 2-core CI-like machine: see kernels/README.md.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "kernels/family.hpp"
#include "kernels/floors.hpp"

namespace r4::kernels {
namespace {

struct Job {
  std::string what;
  gpu::CompileRequest req;
};

void compile_all(std::vector<Job>& jobs) {
  auto probe = gpu::make_cuda_backend();
  try {
    (void)probe->compiler_version();
  } catch (const gpu::Error& e) {
    GTEST_SKIP() << "NVRTC not available: " << e.what();
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < n; ++i)
    pool.emplace_back([&] {
      auto be = gpu::make_cuda_backend();
      for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
        const auto r = be->compile(jobs[j].req);
        std::string bad;
        if (!r.ok) bad = "does not compile:\n" + r.log;
        for (const auto& [k, res] : r.resources)
          if (res.spills())
            bad += fmt::format("{} spills ({} B stores, {} B loads, {} registers)", k,
                               res.spill_stores, res.spill_loads, res.registers);
        if (r.ok && r.resources.empty()) bad = "no resource report in the log";
        if (!bad.empty()) {
          std::lock_guard lock(mu);
          failures.push_back(jobs[j].what + ": " + bad);
        }
      }
    });
  for (auto& t : pool) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("compiled {} kernels on {} threads in {:.1f} s\n", jobs.size(), n, s);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

// A request's compiler input apart from the sources, which are the kernel's own: the configs whose
// SKs share one body (kernels/config.hpp sk_define) differ only in their launch_key.
std::string body_of(const gpu::CompileRequest& r) {
  std::string b = r.source_name + " " + r.arch.name;
  for (const auto& d : r.defines) b += " -D" + d;
  for (const auto& o : r.extra_options) b += " " + o;
  return b;
}

std::vector<Job> gemm_jobs(const gpu::Arch& arch, std::size_t stride) {
  std::vector<Job> jobs;
  std::set<std::string> bodies;
  std::size_t configs = 0;
  for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt, KernelId::gemm_w4a8fp8_nt,
                      KernelId::gemm_mxfp4a8fp8_nt}) {
    const auto space = config_space(id, arch);  // the fp8 GEMMs: none on sm_80
    for (std::size_t i = 0; i < space.size(); i += stride)
      for (bool bf16 : {false, true}) {
        if (bf16 && id != KernelId::gemm_w4a16_nt) continue;
        ++configs;
        auto req = compile_request(id, space[i], arch, {bf16, false});
        if (!bodies.insert(body_of(req)).second) continue;  // compiled for another SK
        jobs.push_back(
            {fmt::format("{} {} {} a_bf16={}", name(id), to_string(space[i]), arch.name, bf16),
             std::move(req)});
      }
  }
  fmt::print("{} configs for {}: {} compiled bodies\n", configs, arch.name, jobs.size());
  jobs.push_back({"quant_act " + arch.name, compile_request(KernelId::quant_act, Config{}, arch)});
  jobs.push_back({"quant_act_fp8 " + arch.name, quant_act_fp8_compile_request(arch)});
  jobs.push_back({"reference " + arch.name, reference_compile_request(arch)});
  // The floor kernels (the sweep's two, and the experiment kernels r4kern --floors times).
  jobs.push_back({"read_floor " + arch.name, floor_compile_request(arch)});
  return jobs;
}

TEST(CompileAll, EveryValidConfigCompilesWithoutSpillsForSm90) {
  auto jobs = gemm_jobs(gpu::Arch::from("sm_90"), 1);
  compile_all(jobs);
}

TEST(CompileAll, SampleOfConfigsCompilesForSm80) {
  auto jobs = gemm_jobs(gpu::Arch::from("sm_80"), 7);
  compile_all(jobs);
}

}  // namespace
}  // namespace r4::kernels
