// The compiled-in tables (the header CMake's R4D_TABLES_HEADER names, in the format
// reports/emit_cpp.cpp writes) and the seeds' config_for over them.
#include <algorithm>
#include <string>

#include "detail.hpp"
#include "r4d/constants.hpp"
#include "r4d/table.hpp"

#include R4D_TABLES_HEADER  // NOLINT: a path string from CMake

static_assert(r4d::GEMM_W4_GROUP == r4::kernels::kGroup);
static_assert(r4d::GEMM_W4A8_GROUP == r4::kernels::kGroup);
static_assert(r4d::GEMM_W4_MAX_M == r4::kernels::kMaxM);
static_assert(r4d::kGenMmaSync == r4::kernels::kGenMmaSync);
static_assert(r4d::kGenSm90a == r4::kernels::kGenSm90a);
static_assert(r4d::kGenLdg == r4::kernels::kGenLdg);

// A header from a run with no w4a8 (or no w4a16) winners has no array of that name; qualified
// lookup then falls through to this using-directive and finds `missing` instead.
namespace r4d::table_fallback {
struct missing {};
inline constexpr missing gemm_w4a16_nt_w4a16{};
inline constexpr missing gemm_w4a8_nt_w4a8{};
inline constexpr missing gemm_w4a8fp8_nt_w4a8fp8{};
inline constexpr missing gemm_mxfp4a8fp8_nt_mxfp4a8fp8{};
}  // namespace r4d::table_fallback
namespace r4d::generated {
using namespace r4d::table_fallback;  // NOLINT: the fallback above, by design
}  // namespace r4d::generated

namespace r4d {
namespace {

using detail::Counter;
using r4::kernels::KernelId;

template <int N>
constexpr Table as_table(const r4d_table_row (&rows)[N]) {
  return Table(rows, static_cast<std::size_t>(N));
}
constexpr Table as_table(table_fallback::missing) {
  return {};
}

// Every row valid for its kernel at its band's top M (clamped MB for lower M is checked at
// lookup): an mma_sync or ldg row on both build arches, an sm90a row on sm_90 (its only arch), an
// fp8-activation row on sm_89 and sm_90 (its build arches). This is kernels/config.hpp's is_valid,
// generation and ST included, evaluated by the compiler.
constexpr bool row_valid(KernelId id, const r4d_table_row& r, int major, int minor = 0) {
  r4::gpu::Arch a;
  a.vendor = r4::gpu::Vendor::nvidia;
  a.major = major;
  a.minor = minor;
  const r4::kernels::Config c{r.wv, r.sk, r.mb, r.npw, r.nt, r.gen, r.st};
  const r4::kernels::Shape s{r.n, r.k, std::min(r.m_limit, r4::kernels::kMaxM)};
  return r4::kernels::is_valid(id, c, a, s);
}
template <int N>
constexpr bool rows_valid(KernelId id, const r4d_table_row (&rows)[N]) {
  for (const auto& r : rows)
    if (!row_valid(id, r, 9) || (r.gen != r4::kernels::kGenSm90a &&
                                 !row_valid(id, r, 8, r4::kernels::is_fp8_act(id) ? 9 : 0)))
      return false;
  return true;
}
constexpr bool rows_valid(KernelId, table_fallback::missing) {
  return true;
}

static_assert(rows_valid(KernelId::gemm_w4a16_nt, generated::gemm_w4a16_nt_w4a16),
              "a gemm_w4a16_nt row of the compiled-in table fails kernels/config.hpp is_valid");
static_assert(rows_valid(KernelId::gemm_w4a8_nt, generated::gemm_w4a8_nt_w4a8),
              "a gemm_w4a8_nt row of the compiled-in table fails kernels/config.hpp is_valid");

static_assert(rows_valid(KernelId::gemm_w4a8fp8_nt, generated::gemm_w4a8fp8_nt_w4a8fp8),
              "a gemm_w4a8fp8_nt row of the compiled-in table fails kernels/config.hpp is_valid");
static_assert(
    rows_valid(KernelId::gemm_mxfp4a8fp8_nt, generated::gemm_mxfp4a8fp8_nt_mxfp4a8fp8),
    "a gemm_mxfp4a8fp8_nt row of the compiled-in table fails kernels/config.hpp is_valid");

constexpr Table kW4a16 = as_table(generated::gemm_w4a16_nt_w4a16);
constexpr Table kW4a8 = as_table(generated::gemm_w4a8_nt_w4a8);
constexpr Table kW4a8fp8 = as_table(generated::gemm_w4a8fp8_nt_w4a8fp8);
constexpr Table kMxfp4a8fp8 = as_table(generated::gemm_mxfp4a8fp8_nt_mxfp4a8fp8);

Lookup decline(Status s) {
  switch (s) {
    case Status::unknown_shape:
      detail::bump(Counter::unknown_shape);
      break;
    case Status::m_out_of_range:
      detail::bump(Counter::m_out_of_range);
      break;
    default:
      detail::bump(Counter::invalid_config);
      break;
  }
  return Lookup{std::nullopt, s};
}

}  // namespace

std::optional<Dtype> parse_dtype(std::string_view s) {
  if (s == "w4a16") return Dtype::w4a16;
  if (s == "w4a8") return Dtype::w4a8;
  if (s == "w4a8fp8") return Dtype::w4a8fp8;
  if (s == "mxfp4a8fp8") return Dtype::mxfp4a8fp8;
  return std::nullopt;
}

std::string_view to_string(Dtype d) {
  switch (d) {
    case Dtype::w4a16:
      return "w4a16";
    case Dtype::w4a8:
      return "w4a8";
    case Dtype::w4a8fp8:
      return "w4a8fp8";
    case Dtype::mxfp4a8fp8:
      return "mxfp4a8fp8";
  }
  return "";
}

std::string_view generation_name(int gen) {
  switch (gen) {
    case kGenMmaSync:
      return "mma_sync";
    case kGenSm90a:
      return "sm90a";
    case kGenLdg:
      return "ldg";
    default:
      return "";
  }
}

std::string to_string(const Config& c) {
  const auto knobs = std::to_string(c.wv) + ", " + std::to_string(c.sk) + ", " +
                     std::to_string(c.mb) + ", " + std::to_string(c.npw) + ", " +
                     std::to_string(c.nt);
  if (c.gen == kGenMmaSync) return "(" + knobs + ")";
  return std::string(generation_name(c.gen)) + "(" + knobs + ", " + std::to_string(c.st) + ")";
}

Table table(Dtype d) {
  switch (d) {
    case Dtype::w4a16:
      return kW4a16;
    case Dtype::w4a8:
      return kW4a8;
    case Dtype::w4a8fp8:
      return kW4a8fp8;
    case Dtype::mxfp4a8fp8:
      return kMxfp4a8fp8;
  }
  return {};
}

int a8_m() {
  return generated::a8_m;
}

TableInfo table_info() {
  return {R4D_TABLES_HEADER, generated::run_uuid, generated::device, generated::run_date};
}

namespace detail {

Lookup find(std::int64_t n, std::int64_t k, std::int64_t m, Table t, Dtype d) {
  if (m < 1 || m > GEMM_W4_MAX_M) return Lookup{std::nullopt, Status::m_out_of_range};
  bool known = false;
  for (const r4d_table_row& r : t) {
    if (r.n != n || r.k != k) continue;
    known = true;
    if (m > r.m_limit) continue;
    // Either generation: MB is 16-row M tiles in both, so the clamp is the same; the row's
    // generation and ST come with it.
    const int mtiles = static_cast<int>((m + 15) / 16);
    const Config c{r.wv, r.sk, std::min(r.mb, mtiles), r.npw, r.nt, r.gen, r.st};
    if (!valid_for_build(kernel_of(d), c, r4::kernels::Shape{n, k, m}))
      return Lookup{std::nullopt, Status::invalid_config};
    return Lookup{c, Status::ok};
  }
  return Lookup{std::nullopt, known ? Status::m_out_of_range : Status::unknown_shape};
}

Lookup count(Lookup l) {
  bump(Counter::lookups);
  if (l.config) {
    bump(Counter::hits);
    return l;
  }
  return decline(l.status);
}

}  // namespace detail

Lookup lookup(std::int64_t n, std::int64_t k, std::int64_t m, Table t, Dtype d) {
  return detail::count(detail::find(n, k, m, t, d));
}

std::optional<Config> config_for(std::int64_t n, std::int64_t k, std::int64_t m, Table t, Dtype d) {
  return lookup(n, k, m, t, d).config;
}

std::optional<Config> config_for(std::int64_t n, std::int64_t k, std::int64_t m, Dtype d) {
  return lookup(n, k, m, table(d), d).config;
}

}  // namespace r4d
