// CI without a GPU, AMD half: every kernel the family lists (all_kernels) in every config
// config_space gives for the arch, in every source variant (compile_variants: f16 and bf16
// activations for w4a16), plus the reference kernels, compiled with Debian's clang-19 (the
// offline AMD compiler, tuner/gpu/clang_hip.cpp) for gfx1201 (RDNA4), gfx1100 (RDNA3) and
// gfx942 (CDNA3, MI300), and a sample for gfx1200. A compile fails the test when:
//   - it does not build (so a config is_valid accepts but the source refuses is caught),
//   - it spills a register (VGPR or SGPR) or uses scratch memory,
//   - it is a GEMM (name gemm_*) whose `llvm-objdump-19 -d` has no v_wmma_* (gfx11/gfx12) or
//     v_mfma_* (gfx942) instruction; the fp8-activation GEMM (gemm_w4a8fp8_nt, gfx12 only) must
//     contain v_wmma_f32_16x16x16_fp8_fp8 itself (expected_matrix_op),
//   - the compiler reports no resources for the kernel.
// Missing clang-19 fails the test with the install command (scripts/setup.sh installs it).
//
// Compiles run on all cores. Results are cached under the build tree by the sweep's compile key
// (sha256 of sources, headers, arch, defines and the compiler identity,
// tuner/tune/compile_pool.hpp), so a second ctest run on an unchanged tree takes seconds; CI's
// fresh clone compiles everything. R4_AMD_COMPILE_CACHE=0 turns the cache off. The test prints per
// arch: configs, failures, spills, scratch, VGPR / SGPR / AGPR ranges, matrix instructions, wall
// time (kernels/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "kernels/family.hpp"
#include "kernels/floors.hpp"
#include "tuner/gpu/clang_hip.hpp"
#include "tuner/tune/compile_pool.hpp"

namespace r4::kernels {
namespace {
namespace fs = std::filesystem;

struct Job {
  std::string what;
  std::string kernel;   // the entry point to look for
  std::string want_op;  // a GEMM's matrix instruction (prefix); empty: not a GEMM
  gpu::CompileRequest req;
};

// The matrix instruction (a mnemonic prefix) a GEMM's disassembly must contain: any WMMA (gfx11,
// gfx12) or MFMA (gfx942), and for the fp8-activation GEMM the fp8 WMMA itself, so that a body
// falling back to another instruction (or to none: an int8 WMMA on e4m3 bytes would compile) fails.
std::string expected_matrix_op(KernelId id, const gpu::Arch& arch) {
  if (is_fp8_act(id)) return "v_wmma_f32_16x16x16_fp8_fp8";
  return gpu::has_mfma_gfx942(arch) ? "v_mfma_" : "v_wmma_";
}

// What one compile left behind: enough to judge it again without compiling.
struct Outcome {
  bool ok = false;
  std::string log;
  std::map<std::string, gpu::Resources> resources;
  std::map<std::string, int> matrix_ops;  // mnemonic -> count (GEMMs only)
};

nlohmann::json to_json(const Outcome& o) {
  nlohmann::json j = {{"ok", o.ok}, {"log", o.log}, {"matrix_ops", o.matrix_ops}};
  for (const auto& [k, r] : o.resources)
    j["resources"][k] = {r.registers,   r.sgprs,       r.agprs,       r.spill_stores,
                         r.spill_loads, r.stack_bytes, r.shared_bytes};
  return j;
}
Outcome from_json(const nlohmann::json& j) {
  Outcome o;
  o.ok = j.at("ok");
  o.log = j.at("log");
  o.matrix_ops = j.at("matrix_ops").get<std::map<std::string, int>>();
  if (j.contains("resources"))
    for (const auto& [k, v] : j["resources"].items())
      o.resources[k] = {v[0].get<int>(), v[1].get<int>(), v[2].get<int>(), v[3].get<int>(),
                        v[4].get<int>(), v[5].get<int>(), v[6].get<int>(), 0};
  return o;
}

class Cache {
 public:
  Cache() {
    const char* e = std::getenv("R4_AMD_COMPILE_CACHE");
    on_ = !(e && std::string(e) == "0");
    dir_ = fs::path(R4_BINARY_ROOT) / "amd-compile-cache";
    if (on_) fs::create_directories(dir_);
  }
  std::optional<Outcome> find(const std::string& key) const {
    if (!on_) return std::nullopt;
    std::ifstream in(dir_ / (key + ".json"));
    if (!in) return std::nullopt;
    try {
      return from_json(nlohmann::json::parse(in));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  void store(const std::string& key, const Outcome& o) const {
    if (!on_) return;
    const auto tmp =
        dir_ /
        (key + ".tmp" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    std::ofstream(tmp) << to_json(o).dump();
    fs::rename(tmp, dir_ / (key + ".json"));
  }

 private:
  bool on_ = true;
  fs::path dir_;
};

struct Range {
  int lo = 1 << 30, hi = -1;
  void add(int v) {
    if (v < 0) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  [[nodiscard]] std::string str() const {
    return hi < 0 ? std::string("-") : fmt::format("{}-{}", lo, hi);
  }
};

std::vector<Job> arch_jobs(const gpu::Arch& arch, std::size_t stride) {
  std::vector<Job> jobs;
  for (KernelId id : all_kernels()) {
    const auto space = config_space(id, arch);
    const std::string kname(name(id));
    for (std::size_t i = 0; i < space.size(); i += (space.size() > 1 ? stride : 1))
      for (const auto& opt : compile_variants(id))
        jobs.push_back(
            {fmt::format("{} {} {} a_bf16={}", kname, to_string(space[i]), arch.name, opt.a_bf16),
             kname, kname.starts_with("gemm_") ? expected_matrix_op(id, arch) : "",
             compile_request(id, space[i], arch, opt)});
  }
  jobs.push_back({"reference " + arch.name, "ref_gemm_w4", "", reference_compile_request(arch)});
  jobs.push_back({"read_floor " + arch.name, "r4_read_floor", "", floor_compile_request(arch)});
  return jobs;
}

void compile_arch(const std::string& arch_name, std::size_t stride) {
  const auto arch = gpu::Arch::from(arch_name);
  auto be = gpu::make_clang_hip_backend(nullptr);
  std::string version;
  try {
    version = be->compiler_version();
  } catch (const gpu::ToolMissing& e) {
    FAIL() << e.what();
  }
  static const std::regex op_re(R"(\b(v_(?:wmma|mfma)_[a-z0-9_]+))");

  auto jobs = arch_jobs(arch, stride);
  const Cache cache;
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<std::size_t> next{0}, cached{0};
  std::vector<Outcome> out(jobs.size());
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t)
    pool.emplace_back([&] {
      for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
        const std::string key = tune::compile_key(jobs[j].req, version);
        if (auto hit = cache.find(key)) {
          out[j] = std::move(*hit);
          ++cached;
          continue;
        }
        const auto r = be->compile(jobs[j].req);
        Outcome o;
        o.ok = r.ok;
        o.resources = r.resources;
        if (!r.ok) o.log = r.log;
        if (r.ok && !jobs[j].want_op.empty()) {
          const std::string dis = gpu::disassemble_amdgpu(r.binary);
          for (std::sregex_iterator it(dis.begin(), dis.end(), op_re), end; it != end; ++it)
            ++o.matrix_ops[(*it)[1]];
        }
        cache.store(key, o);
        out[j] = std::move(o);
      }
    });
  for (auto& t : pool) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::size_t failed = 0, spilled = 0, scratch = 0, no_op = 0;
  std::map<std::string, std::size_t> per_kernel;  // compiles per kernel (the counts README cites)
  Range vgpr, sgpr, agpr;
  std::map<std::string, int> ops;
  std::vector<std::string> failures;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto& o = out[j];
    std::string bad;
    if (!o.ok) {
      bad = "does not compile:\n" + o.log;
      ++failed;
    } else if (!o.resources.count(jobs[j].kernel)) {
      bad = "no resource report for " + jobs[j].kernel;
      ++failed;
    }
    for (const auto& [k, r] : o.resources) {
      vgpr.add(r.registers);
      sgpr.add(r.sgprs);
      agpr.add(r.agprs);
      if (r.spills()) {
        ++spilled;
        bad += fmt::format("{} spills ({} B, {} VGPRs)\n", k, r.spill_stores, r.registers);
      }
      if (r.stack_bytes > 0) {
        ++scratch;
        bad += fmt::format("{} uses {} B of scratch per lane\n", k, r.stack_bytes);
      }
    }
    ++per_kernel[jobs[j].kernel];
    if (o.ok && !jobs[j].want_op.empty()) {
      int found = 0;
      for (const auto& [op, c] : o.matrix_ops) {
        ops[op] += c;
        if (op.starts_with(jobs[j].want_op)) found += c;
      }
      if (!found) {
        ++no_op;
        bad += "no " + jobs[j].want_op + "* instruction in the disassembly\n";
      }
    }
    if (!bad.empty()) failures.push_back(jobs[j].what + ": " + bad);
  }
  std::string op_list, kernel_list;
  for (const auto& [op, c] : ops) op_list += fmt::format(" {} x{}", op, c);
  for (const auto& [k, c] : per_kernel) kernel_list += fmt::format(" {} {}", k, c);
  fmt::print(
      "{}: {} compiles ({} from cache) with {} on {} threads in {:.1f} s: {} failed, {} spill, "
      "{} use scratch, {} GEMMs without their matrix instruction; VGPRs {}, SGPRs {}, AGPRs {};{}; "
      "per kernel:{}\n",
      arch.name, jobs.size(), cached.load(), version.substr(0, version.find(" (")), n, secs, failed,
      spilled, scratch, no_op, vgpr.str(), sgpr.str(), agpr.str(), op_list, kernel_list);
  for (const auto& f : failures) ADD_FAILURE() << f;
}

TEST(CompileAllAmd, EveryValidConfigForGfx1201) {
  compile_arch("gfx1201", 1);
}
TEST(CompileAllAmd, EveryValidConfigForGfx1100) {
  compile_arch("gfx1100", 1);
}
TEST(CompileAllAmd, EveryValidConfigForGfx942) {
  compile_arch("gfx942", 1);
}
// gfx1200 is gfx1201's ISA (same WMMA, same code path): every 7th config, as sm_80 on NVIDIA.
TEST(CompileAllAmd, SampleOfConfigsForGfx1200) {
  compile_arch("gfx1200", 7);
}

}  // namespace
}  // namespace r4::kernels
