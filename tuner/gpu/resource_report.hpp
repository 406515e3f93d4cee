// Parsers for the compilers' resource reports, so that registers and spills are known without a
// device: NVRTC's `-Xptxas -v` log (ptxas info lines) and hipRTC/clang's
// `-Rpass-analysis=kernel-resource-usage` remarks.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "tuner/gpu/types.hpp"

namespace r4::gpu {

// Lines like
//   ptxas info    : Compiling entry function 'k' for 'sm_90'
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 72 registers, used 0 barriers, 1024 bytes smem
[[nodiscard]] std::map<std::string, Resources> parse_ptxas_report(std::string_view log);

// Lines like
//   remark: t.hip:3:0: Function Name: k [-Rpass-analysis=kernel-resource-usage]
//   remark: t.hip:3:0:     VGPRs: 12 [...]
//   remark: t.hip:3:0:     ScratchSize [bytes/lane]: 0 [...]
//   remark: t.hip:3:0:     LDS Size [bytes/block]: 0 [...]
// Spills are reported as "VGPRs Spill" / "SGPRs Spill" counts (registers, converted to 4 bytes).
[[nodiscard]] std::map<std::string, Resources> parse_amdgpu_remarks(std::string_view log);

// AMD code objects (ELF) carry per-kernel metadata as MessagePack in a note: keys such as
// ".name", ".vgpr_count", ".vgpr_spill_count", ".sgpr_spill_count",
// ".private_segment_fixed_size", ".group_segment_fixed_size". Debian's ROCm 5.2 (LLVM 14) has no
// kernel-resource-usage remark, so this scan of the code object is how AMD resources are known
// without a device. Only the scalar fields above are read; each kernel's map has unique keys, so
// a repeated key starts the next kernel.
[[nodiscard]] std::map<std::string, Resources> parse_amdgpu_metadata(
    std::span<const std::byte> elf);

}  // namespace r4::gpu
