#include "tuner/gpu/arch.hpp"

#include <array>
#include <charconv>
#include <span>
#include <stdexcept>

namespace r4::gpu {

std::string_view to_string(Vendor v) {
  return v == Vendor::nvidia ? "nvidia" : "amd";
}

namespace {
// Targets the kernel family has fragment helpers for. sm_80..sm_90 use mma.sync; gfx11/gfx12
// use WMMA; gfx90a/gfx942 and gfx1030 are accepted so that the GPU layer (compile, resources) can
// be exercised with Debian's hipRTC, which has no gfx12 support (ROCm 5.2).
constexpr std::array<std::string_view, 7> kNvidia = {"sm_80", "sm_86",  "sm_87", "sm_89",
                                                     "sm_90", "sm_90a", "sm_100"};
constexpr std::array<std::string_view, 9> kAmd = {"gfx90a",  "gfx942",  "gfx1030",
                                                  "gfx1100", "gfx1101", "gfx1102",
                                                  "gfx1150", "gfx1200", "gfx1201"};

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}
}  // namespace

std::optional<Arch> Arch::parse(std::string_view t) {
  Arch a;
  a.name = std::string(t);
  if (t.starts_with("sm_")) {
    a.vendor = Vendor::nvidia;
    std::string_view digits = t.substr(3);
    if (!digits.empty() && digits.back() == 'a') digits.remove_suffix(1);
    int v = 0;
    if (digits.size() < 2 || !parse_int(digits, v)) return std::nullopt;
    a.major = v / 10;
    a.minor = v % 10;
    return a;
  }
  if (t.starts_with("gfx")) {
    a.vendor = Vendor::amd;
    std::string_view rest = t.substr(3);
    // gfx<major><minor><stepping>: major is everything but the last two characters; the last
    // two are hex digits (gfx90a -> major 9, minor 0, stepping a).
    if (rest.size() < 3) return std::nullopt;
    int major = 0;
    if (!parse_int(rest.substr(0, rest.size() - 2), major)) return std::nullopt;
    a.major = major;
    int minor = 0;
    const char m = rest[rest.size() - 2];
    if (m < '0' || m > '9') return std::nullopt;
    minor = m - '0';
    a.minor = minor;
    return a;
  }
  return std::nullopt;
}

namespace {
// Targets people ask for that r4tune knows of but cannot serve, and why (the message a user sees).
struct Refused {
  std::string_view name, why;
};
constexpr Refused kRefused[] = {
    {"gfx950", "gfx950 (MI350/MI355X) is not supported: Debian's clang-19 does not know the target "
               "and the kernel family has no MFMA path for it"},
    {"gfx940", "gfx940 is not supported: MI300 parts are compiled as gfx942"},
    {"gfx941", "gfx941 is not supported: MI300 parts are compiled as gfx942"},
    {"gfx908", "gfx908 (MI100) is not supported: no kernel path for CDNA1"},
};
}  // namespace

Arch Arch::from(std::string_view text) {
  auto a = parse(text);
  if (!a || !is_supported(*a)) {
    for (const auto& r : kRefused)
      if (r.name == text)
        throw std::invalid_argument(std::string(r.why) + "; known targets: " +
                                    supported_arch_list());
    throw std::invalid_argument("unknown or unsupported arch '" + std::string(text) +
                                "'; known targets: " + supported_arch_list());
  }
  return *a;
}

bool is_supported(const Arch& a) {
  const auto& list = a.vendor == Vendor::nvidia ? std::span<const std::string_view>(kNvidia)
                                                : std::span<const std::string_view>(kAmd);
  for (auto n : list)
    if (n == a.name) return true;
  return false;
}

std::string supported_arch_list() {
  std::string s;
  for (auto n : kNvidia) (s += n) += ' ';
  for (auto n : kAmd) (s += n) += ' ';
  s.pop_back();
  return s;
}

int wave_size(const Arch& a) {
  if (a.vendor == Vendor::nvidia) return 32;
  // CDNA (gfx9) runs wave64; RDNA (gfx10+) is compiled wave32 here (-mwavefrontsize64 is off).
  return a.major >= 10 ? 32 : 64;
}

bool has_mma_sync(const Arch& a) {
  return a.vendor == Vendor::nvidia && a.major >= 8;
}
bool has_wgmma(const Arch& a) {
  return a.vendor == Vendor::nvidia && a.major == 9;
}
bool has_pdl(const Arch& a) {
  return a.vendor == Vendor::nvidia && a.major >= 9;
}
bool has_wmma_gfx11(const Arch& a) {
  return a.vendor == Vendor::amd && a.major == 11;
}
bool has_wmma_gfx12(const Arch& a) {
  return a.vendor == Vendor::amd && a.major == 12;
}
bool has_mfma_gfx942(const Arch& a) {
  return a.vendor == Vendor::amd && a.name == "gfx942";
}
int lds_bytes_per_workgroup(const Arch& a) {
  if (a.vendor != Vendor::amd) return 0;
  return 64 * 1024;  // gfx9 CDNA (gfx90a, gfx942), gfx10-gfx12 RDNA: 64 KiB per workgroup
}

}  // namespace r4::gpu
