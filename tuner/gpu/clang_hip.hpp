// The offline AMD compiler: HIP device code compiled ahead of time with Debian's clang-19, no ROCm
// needed (../shared/PRIOR_ART.md, "AMD without a GPU"):
//
//   clang++-19 -x hip --offload-arch=ARCH --cuda-device-only --no-gpu-bundle-output
//              -nogpuinc -nogpulib -O3 -std=c++17 -Rpass-analysis=kernel-resource-usage
//              -include <r4 stand-in prelude> -D... SOURCE -o CODE_OBJECT
//
// The code object is a linked AMDGPU ELF (ld.lld-19 does the link), the same kind hipRTC returns
// and hipModuleLoadData takes. The stand-in prelude (tuner/gpu/clang_hip_prelude.h, embedded)
// replaces the HIP headers with clang builtins. Resources (VGPRs, SGPRs, AGPRs, scratch, spills,
// LDS) come from the kernel-resource-usage remarks, else from the code object's metadata.
//
// make_backend(arch) (backend.hpp) picks this compiler for an AMD target when no hipRTC that
// knows the target is installed; R4TUNE_AMD_COMPILER=clang|hiprtc overrides the choice.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "tuner/gpu/backend.hpp"

namespace r4::gpu {

// Where the tools are: $R4TUNE_CLANG (a path), else clang++-19 on PATH, else
// /usr/lib/llvm-19/bin/clang++; $R4TUNE_LLVM_OBJDUMP, else llvm-objdump-19, else
// /usr/lib/llvm-19/bin/llvm-objdump. Empty when absent.
[[nodiscard]] std::string find_clang_hip();
[[nodiscard]] std::string find_llvm_objdump();

// How to install what is missing (Debian 12), for messages.
[[nodiscard]] std::string clang_install_hint();

// The stand-in prelude's text (embedded).
[[nodiscard]] std::string_view clang_hip_prelude();

// A Backend whose compile() runs clang-19 and whose device operations go to `runtime` (the HIP
// backend, for a machine with an AMD GPU whose hipRTC does not know the target) or, when null,
// report no device. compiler_version() and compile() throw ToolMissing when clang-19 is absent.
[[nodiscard]] std::unique_ptr<Backend> make_clang_hip_backend(std::unique_ptr<Backend> runtime);

// `llvm-objdump-19 -d` of a code object (ToolMissing when absent; Error when it fails).
[[nodiscard]] std::string disassemble_amdgpu(std::span<const std::byte> code_object);

}  // namespace r4::gpu
