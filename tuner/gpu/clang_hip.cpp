#include "tuner/gpu/clang_hip.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <sstream>

#include <fmt/core.h>

#include "tuner/gpu/embedded_sources.hpp"
#include "tuner/gpu/resource_report.hpp"
#include "tuner/gpu/subprocess.hpp"

namespace r4::gpu {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPreludePath = "tuner/gpu/clang_hip_prelude.h";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string find_tool(const char* env_var, const char* versioned, const char* fallback) {
  if (auto e = env(env_var); !e.empty()) return find_on_path(e);
  if (auto p = find_on_path(versioned); !p.empty()) return p;
  return ::access(fallback, X_OK) == 0 ? std::string(fallback) : std::string();
}

// The flags every compile gets, in order; part of the compiler identity (so the cache key moves
// when they change).
const std::vector<std::string>& fixed_flags() {
  static const std::vector<std::string> f = {
      "-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", "-nogpuinc", "-nogpulib",
      "-O3", "-std=c++17", "-Rpass-analysis=kernel-resource-usage", "-fno-color-diagnostics"};
  return f;
}

// FNV-1a, 64 bits: identifies the prelude text and the flags in the compiler identity.
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// The remarks repeat the kernel's source line under each of their ten lines; only the remark
// lines are kept (errors and warnings keep their source lines and carets).
std::string drop_remark_snippets(const std::string& log) {
  std::istringstream in(log);
  std::string out, line;
  bool after_remark = false;
  static const std::regex snippet(R"(^\s*\d*\s*\|)");
  while (std::getline(in, line)) {
    if (line.find(" remark: ") != std::string::npos) {
      after_remark = true;
    } else if (after_remark && std::regex_search(line, snippet)) {
      continue;
    } else {
      after_remark = false;
    }
    (out += line) += '\n';
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A temporary folder removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "r4tune-clang-XXXXXX").string();
    if (!::mkdtemp(t.data())) throw Error("mkdtemp failed for " + t);
    path_ = t;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw Error("cannot write " + p.string());
}

// An include name that stays inside the folder: relative, no "..".
bool safe_relative(const std::string& name) {
  const fs::path p(name);
  if (name.empty() || p.is_absolute()) return false;
  for (const auto& part : p)
    if (part == "..") return false;
  return true;
}

std::string tool_missing_message(const std::string& what) {
  return fmt::format("{} not found; {}", what, clang_install_hint());
}

class ClangHipBackend final : public Backend {
 public:
  explicit ClangHipBackend(std::unique_ptr<Backend> runtime) : runtime_(std::move(runtime)) {}

  [[nodiscard]] Vendor vendor() const override { return Vendor::amd; }

  [[nodiscard]] std::string compiler_version() override {
    std::call_once(version_once_, [this] { version_ = probe_version(); });
    if (version_.empty()) throw ToolMissing(version_error_);
    return version_;
  }

  [[nodiscard]] CompileResult compile(const CompileRequest& req) override {
    const std::string clang = clang_path();
    CompileResult res;
    if (req.arch.vendor != Vendor::amd) {
      res.log = "clang-19 (offline HIP) cannot compile for " + req.arch.name;
      return res;
    }
    const auto t0 = std::chrono::steady_clock::now();
    TempDir dir;
    // Sources and in-memory headers go under their own names, so "#include "kernels/x.h"" finds
    // them through -I. and diagnostics name them as the kernel author does.
    const std::string src = fs::path(req.source_name.empty() ? "source.hip" : req.source_name)
                                .filename()
                                .string();
    write_file(dir.path() / src, req.source);
    for (const auto& [name, text] : req.headers) {
      if (!safe_relative(name)) {
        res.log = "in-memory header name '" + name + "' must be a relative path without '..'";
        return res;
      }
      write_file(dir.path() / name, text);
    }
    write_file(dir.path() / ".r4" / "clang_hip_prelude.h", clang_hip_prelude());

    res.options = fixed_flags();
    res.options.push_back("--offload-arch=" + req.arch.name);
    res.options.emplace_back("-include");
    res.options.emplace_back(kPreludePath);  // recorded by name; passed as the copy below
    for (const auto& d : req.defines) res.options.push_back("-D" + d);
    for (const auto& i : req.include_dirs) res.options.push_back("-I" + i);
    for (const auto& o : req.extra_options) res.options.push_back(o);

    std::vector<std::string> argv = {clang};
    for (const auto& o : res.options)
      argv.push_back(o == kPreludePath ? ".r4/clang_hip_prelude.h" : o);
    argv.emplace_back("-I.");
    argv.push_back(src);
    argv.emplace_back("-o");
    argv.emplace_back("out.co");
    const auto run = run_process(argv, dir.path().string());
    res.log = drop_remark_snippets(run.output);
    if (run.exit_code == 0) {
      std::ifstream in(dir.path() / "out.co", std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      res.binary.resize(bytes.size());
      std::memcpy(res.binary.data(), bytes.data(), bytes.size());
      res.ok = !res.binary.empty();
      if (!res.ok) res.log += "\nclang exited 0 but wrote no code object";
    } else if (run.signal) {
      res.log += fmt::format("\n{} died on signal {}", clang, run.signal);
    } else if (res.log.empty()) {
      res.log = fmt::format("{} exited with {}", clang, run.exit_code);
    }
    if (res.ok) {
      res.resources = parse_amdgpu_remarks(res.log);
      if (res.resources.empty()) res.resources = parse_amdgpu_metadata(res.binary);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }

  [[nodiscard]] int device_count() override { return runtime_ ? runtime_->device_count() : 0; }
  [[nodiscard]] std::string status() override {
    return runtime_ ? runtime_->status()
                    : std::string("no HIP runtime in this build (compiling with clang-19 only)");
  }
  [[nodiscard]] DeviceInfo device_info(int index) override {
    if (!runtime_) throw Error(fmt::format("no AMD device {}: no HIP runtime in this build", index));
    return runtime_->device_info(index);
  }
  [[nodiscard]] std::unique_ptr<Context> open(int index) override {
    if (!runtime_) throw Error(fmt::format("no AMD device {}: no HIP runtime in this build", index));
    return runtime_->open(index);
  }

 private:
  std::string clang_path() {
    (void)compiler_version();  // throws ToolMissing when absent
    return path_;
  }

  std::string probe_version() {
    path_ = find_clang_hip();
    if (path_.empty()) {
      const auto e = env("R4TUNE_CLANG");
      version_error_ = tool_missing_message(
          e.empty() ? std::string("clang++-19 (the offline AMD compiler)")
                    : fmt::format("R4TUNE_CLANG={} (the offline AMD compiler)", e));
      return {};
    }
    const auto run = run_process({path_, "--version"});
    const std::string first = run.output.substr(0, run.output.find('\n'));
    static const std::regex ver(R"(clang version (\d+)\.(\d+)\.(\d+))");
    std::smatch m;
    if (run.exit_code != 0 || !std::regex_search(first, m, ver)) {
      version_error_ = tool_missing_message(
          fmt::format("a working clang++-19 ({} --version said: {})", path_, first));
      return {};
    }
    if (std::stoi(m[1]) < 19) {
      version_error_ = tool_missing_message(fmt::format(
          "clang 19 or newer ({} is clang {}; it lacks the gfx12 WMMA builtins)", path_, m[1].str()));
      return {};
    }
    std::uint64_t h = fnv1a(clang_hip_prelude());
    for (const auto& f : fixed_flags()) h = fnv1a(f + "\n", h);
    return fmt::format("clang {}.{}.{} offline HIP ({}; prelude+flags {:016x})", m[1].str(),
                       m[2].str(), m[3].str(), first, h);
  }

  std::unique_ptr<Backend> runtime_;
  std::once_flag version_once_;
  std::string version_, version_error_, path_;
};

}  // namespace

std::string find_clang_hip() {
  return find_tool("R4TUNE_CLANG", "clang++-19", "/usr/lib/llvm-19/bin/clang++");
}

std::string find_llvm_objdump() {
  return find_tool("R4TUNE_LLVM_OBJDUMP", "llvm-objdump-19", "/usr/lib/llvm-19/bin/llvm-objdump");
}

std::string clang_install_hint() {
  return "install Debian's LLVM 19 with `sudo apt-get install clang-19 lld-19 llvm-19` (or run "
         "scripts/setup.sh, which does), or point R4TUNE_CLANG at a clang++ 19 or newer";
}

std::string_view clang_hip_prelude() {
  for (const auto& f : embedded_sources())
    if (f.path == kPreludePath) return f.text;
  throw Error(std::string(kPreludePath) + " is not embedded in this binary");
}

std::unique_ptr<Backend> make_clang_hip_backend(std::unique_ptr<Backend> runtime) {
  return std::make_unique<ClangHipBackend>(std::move(runtime));
}

std::string disassemble_amdgpu(std::span<const std::byte> code_object) {
  const std::string objdump = find_llvm_objdump();
  if (objdump.empty()) throw ToolMissing(tool_missing_message("llvm-objdump-19"));
  TempDir dir;
  write_file(dir.path() / "k.co",
             std::string_view(reinterpret_cast<const char*>(code_object.data()), code_object.size()));
  const auto run = run_process({objdump, "-d", "k.co"}, dir.path().string());
  if (run.exit_code != 0) throw Error(fmt::format("{} -d failed: {}", objdump, run.output));
  return run.output;
}

}  // namespace r4::gpu
