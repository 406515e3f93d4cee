#include "tuner/gpu/resource_report.hpp"

#include <regex>
#include <sstream>

namespace r4::gpu {

namespace {
int to_int(const std::string& s) { return std::stoi(s); }
}  // namespace

std::map<std::string, Resources> parse_ptxas_report(std::string_view log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::map<std::string, Resources> out;
  std::string current;
  std::istringstream in{std::string(log)};
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      current = m[1];
      out[current] = Resources{};
    } else if (current.empty()) {
      continue;
    } else if (std::regex_search(line, m, frame)) {
      auto& r = out[current];
      r.stack_bytes = to_int(m[1]);
      r.spill_stores = to_int(m[2]);
      r.spill_loads = to_int(m[3]);
    } else if (std::regex_search(line, m, used)) {
      auto& r = out[current];
      r.registers = to_int(m[1]);
      if (std::regex_search(line, m, smem)) r.shared_bytes = to_int(m[1]);
    }
  }
  return out;
}

std::map<std::string, Resources> parse_amdgpu_remarks(std::string_view log) {
  static const std::regex name(R"(Function Name: (\S+))");
  static const std::regex vgpr(R"(\bVGPRs: (\d+))");
  static const std::regex vspill(R"(VGPRs Spill: (\d+))");
  static const std::regex sspill(R"(SGPRs Spill: (\d+))");
  static const std::regex scratch(R"(ScratchSize \[bytes/lane\]: (\d+))");
  static const std::regex lds(R"(LDS Size \[bytes/block\]: (\d+))");
  std::map<std::string, Resources> out;
  std::string current;
  std::istringstream in{std::string(log)};
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, name)) {
      current = m[1];
      out[current] = Resources{};
      continue;
    }
    if (current.empty()) continue;
    auto& r = out[current];
    if (std::regex_search(line, m, vspill)) {
      r.spill_stores += 4 * to_int(m[1]);
      r.spill_loads += 4 * to_int(m[1]);
    } else if (std::regex_search(line, m, sspill)) {
      r.spill_stores += 4 * to_int(m[1]);
      r.spill_loads += 4 * to_int(m[1]);
    } else if (std::regex_search(line, m, vgpr)) {
      r.registers = to_int(m[1]);
    } else if (std::regex_search(line, m, scratch)) {
      r.stack_bytes = to_int(m[1]);
    } else if (std::regex_search(line, m, lds)) {
      r.shared_bytes = to_int(m[1]);
    }
  }
  return out;
}

}  // namespace r4::gpu
