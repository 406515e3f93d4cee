#include "tuner/gpu/resource_report.hpp"

#include <regex>
#include <sstream>

namespace r4::gpu {

namespace {
int to_int(const std::string& s) {
  return std::stoi(s);
}
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
  static const std::regex sgpr(R"(\bSGPRs: (\d+))");
  static const std::regex agpr(R"(\bAGPRs: (\d+))");
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
    } else if (std::regex_search(line, m, sgpr)) {
      r.sgprs = to_int(m[1]);
    } else if (std::regex_search(line, m, agpr)) {
      r.agprs = to_int(m[1]);
    } else if (std::regex_search(line, m, scratch)) {
      r.stack_bytes = to_int(m[1]);
    } else if (std::regex_search(line, m, lds)) {
      r.shared_bytes = to_int(m[1]);
    }
  }
  return out;
}

namespace {

// Reads a MessagePack unsigned integer at p (positive fixint, uint8/16/32); false if not one.
bool msgpack_uint(std::span<const std::byte> b, size_t p, std::uint64_t& v) {
  if (p >= b.size()) return false;
  const auto t = static_cast<std::uint8_t>(b[p]);
  auto be = [&](size_t n) {
    if (p + n >= b.size()) return false;
    v = 0;
    for (size_t i = 1; i <= n; ++i) v = (v << 8) | static_cast<std::uint8_t>(b[p + i]);
    return true;
  };
  if (t < 0x80) {
    v = t;
    return true;
  }
  if (t == 0xcc) return be(1);
  if (t == 0xcd) return be(2);
  if (t == 0xce) return be(4);
  return false;
}

// Reads a MessagePack string (fixstr or str8) at p.
bool msgpack_str(std::span<const std::byte> b, size_t p, std::string& s, size_t& len_out) {
  if (p >= b.size()) return false;
  const auto t = static_cast<std::uint8_t>(b[p]);
  size_t len = 0, start = 0;
  if ((t & 0xe0) == 0xa0) {
    len = t & 0x1f;
    start = p + 1;
  } else if (t == 0xd9 && p + 1 < b.size()) {
    len = static_cast<std::uint8_t>(b[p + 1]);
    start = p + 2;
  } else {
    return false;
  }
  if (start + len > b.size()) return false;
  s.assign(reinterpret_cast<const char*>(b.data() + start), len);
  len_out = start + len - p;
  return true;
}

}  // namespace

std::map<std::string, Resources> parse_amdgpu_metadata(std::span<const std::byte> elf) {
  static const std::string keys[] = {".name",
                                     ".vgpr_count",
                                     ".sgpr_count",
                                     ".agpr_count",
                                     ".vgpr_spill_count",
                                     ".sgpr_spill_count",
                                     ".private_segment_fixed_size",
                                     ".group_segment_fixed_size"};
  std::map<std::string, Resources> out;
  std::map<std::string, std::uint64_t> cur;
  std::string cur_name;
  auto flush = [&] {
    if (cur_name.empty()) return;
    Resources r;
    r.registers = static_cast<int>(cur[".vgpr_count"]);
    if (cur.count(".sgpr_count")) r.sgprs = static_cast<int>(cur[".sgpr_count"]);
    if (cur.count(".agpr_count")) r.agprs = static_cast<int>(cur[".agpr_count"]);
    const int spill = static_cast<int>(4 * (cur[".vgpr_spill_count"] + cur[".sgpr_spill_count"]));
    r.spill_stores = spill;
    r.spill_loads = spill;
    r.stack_bytes = static_cast<int>(cur[".private_segment_fixed_size"]);
    r.shared_bytes = static_cast<int>(cur[".group_segment_fixed_size"]);
    out[cur_name] = r;
  };
  std::string seen_name_key;
  for (size_t p = 0; p < elf.size(); ++p) {
    std::string key;
    size_t klen = 0;
    if (static_cast<std::uint8_t>(elf[p]) != (0xa0 | 5) &&
        (static_cast<std::uint8_t>(elf[p]) & 0xe0) != 0xa0)
      continue;
    if (!msgpack_str(elf, p, key, klen) || key.empty() || key[0] != '.') continue;
    bool wanted = false;
    for (const auto& k : keys) wanted = wanted || key == k;
    if (!wanted) continue;
    const size_t vp = p + klen;
    if (key == ".name") {
      std::string name;
      size_t nlen = 0;
      if (!msgpack_str(elf, vp, name, nlen)) continue;
      if (!cur_name.empty() || cur.count(".name")) {
        flush();
        cur.clear();
      }
      cur_name = name;
      cur[".name"] = 1;
      p = vp + nlen - 1;
      continue;
    }
    std::uint64_t v = 0;
    if (!msgpack_uint(elf, vp, v)) continue;
    if (cur.count(key)) {  // a repeated key: the next kernel's map has begun
      flush();
      cur.clear();
      cur_name.clear();
    }
    cur[key] = v;
  }
  flush();
  return out;
}

}  // namespace r4::gpu
