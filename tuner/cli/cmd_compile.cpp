// r4tune compile FILE --arch ARCH [-D NAME=VALUE ...] [-I DIR ...]: one run-time compile, its
// resources per kernel and the compiler's log. Needs no GPU.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "tuner/cli/command.hpp"
#include "tuner/cli/options.hpp"
#include "tuner/gpu/backend.hpp"

namespace r4::cli {

int run_compile(std::span<const std::string> args) {
  po::options_description desc("options");
  std::string file, arch_name;
  std::vector<std::string> defines, includes;
  desc.add_options()("file", po::value(&file)->required(), "kernel source file")(
      "arch", po::value(&arch_name)->required(), "target, e.g. sm_90 or gfx1201")(
      "define,D", po::value(&defines)->composing(), "preprocessor define NAME[=VALUE]")(
      "include,I", po::value(&includes)->composing(), "include directory")(
      "quiet,q", "print resources only, not the compiler log");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!parse(args, "r4tune compile FILE --arch ARCH [-D NAME=VALUE]... [-I DIR]...", desc, pos, vm))
    return ok;

  gpu::Arch arch;
  try {
    arch = gpu::Arch::from(arch_name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot read '" + file + "': no such file or not readable");
  std::stringstream ss;
  ss << in.rdbuf();

  gpu::CompileRequest req;
  req.source = ss.str();
  req.source_name = std::filesystem::path(file).filename().string();
  req.arch = arch;
  req.defines = defines;
  req.include_dirs = includes;
  // The file's own folder and the repository root (for #include "kernels/..." and "quant/...").
  req.include_dirs.push_back(std::filesystem::absolute(file).parent_path().string());
  req.include_dirs.push_back(R4_SOURCE_ROOT);

  // AMD: hipRTC when the installed ROCm knows the arch, else Debian's clang-19 (offline).
  auto backend = gpu::make_backend(arch);
  const std::string compiler = backend->compiler_version();  // ToolMissing: exit 3
  const auto res = backend->compile(req);
  if (!res.ok) {
    fmt::print(stderr, "r4tune compile: {} does not compile for {} ({}):\n{}\n", file, arch.name,
               compiler, res.log);
    return failure;
  }
  fmt::print("{}: compiled for {} with {} in {:.2f} s, {} bytes of code\n", file, arch.name,
             compiler, res.seconds, res.binary.size());
  const bool amd = arch.vendor == gpu::Vendor::amd;
  fmt::print("{:<40} {:>9} {:>12} {:>11} {:>11} {:>12}{}\n", "kernel",
             amd ? "VGPRs" : "registers", "spill stores", "spill loads",
             amd ? "scratch B" : "stack B", amd ? "LDS B" : "shared B",
             amd ? fmt::format(" {:>6} {:>6}", "SGPRs", "AGPRs") : "");
  for (const auto& [name, r] : res.resources)
    fmt::print("{:<40} {:>9} {:>12} {:>11} {:>11} {:>12}{}\n", name, r.registers, r.spill_stores,
               r.spill_loads, r.stack_bytes, r.shared_bytes,
               amd ? fmt::format(" {:>6} {:>6}", r.sgprs, r.agprs < 0 ? 0 : r.agprs) : "");
  if (!vm.count("quiet") && !res.log.empty()) fmt::print("\ncompiler log:\n{}\n", res.log);
  return ok;
}

}  // namespace r4::cli
