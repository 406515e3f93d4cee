#include "reports/tables.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/core.h>

namespace r4::report {

namespace {

std::string upper_ident(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  return out;
}

std::string ident(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

int table_rank(const KernelTable& t) {
  if (t.dtype == "w4a16") return 0;
  if (t.dtype == "w4a8") return 1;
  if (t.dtype == "w4a8fp8") return 2;
  if (t.dtype == "mxfp4a8fp8") return 3;
  return 4;
}

int compute_a8_m(const std::vector<KernelTable>& tables) {
  const KernelTable* f16 = nullptr;
  const KernelTable* i8 = nullptr;
  for (const auto& t : tables) {
    if (t.dtype == "w4a16" && !f16) f16 = &t;
    if (t.dtype == "w4a8" && !i8) i8 = &t;
  }
  if (!f16) return 0;
  std::map<int, std::pair<double, double>> sums;  // band -> (w4a16 sum, w4a8 sum)
  int max_f16_band = 0;
  for (const auto& s : f16->shapes)
    for (const auto& b : s.bands) max_f16_band = std::max(max_f16_band, b.m_limit);
  if (!i8) return max_f16_band;
  for (const auto& s : f16->shapes) {
    auto other = std::find_if(i8->shapes.begin(), i8->shapes.end(),
                              [&](const ShapeTable& o) { return o.n == s.n && o.k == s.k; });
    if (other == i8->shapes.end()) continue;
    for (const auto& b : s.bands)
      for (const auto& ob : other->bands)
        if (ob.m_limit == b.m_limit) {
          sums[b.m_limit].first += b.median_us;
          sums[b.m_limit].second += ob.median_us;
        }
  }
  int a8_m = 0;
  for (const auto& [band, st] : sums) {
    if (st.first > st.second) break;
    a8_m = band;
  }
  if (sums.empty()) return max_f16_band;
  return a8_m;
}

}  // namespace

RunTables load_tables(const db::Store& store, db::Id run_id) {
  RunTables t = build_tables(store, run_id, store.winners(run_id, db::OnInvalid::reject));
  if (t.tables.empty())
    throw db::NotFound(
        fmt::format("run {} in '{}' has no winners: nothing to emit", t.run.uuid, store.path()));
  return t;
}

RunTables build_tables(const db::Store& store, db::Id run_id,
                       const std::vector<db::WinnerRow>& winners) {
  RunTables out;
  out.run = store.run(run_id);
  out.device = store.run_device(out.run);
  out.device_label = out.device ? fmt::format("{} ({}, {} SMs)", out.device->name, out.device->arch,
                                              out.device->multiprocessors)
                                : "no device";
  out.date = out.run.started_at.substr(0, 10);

  // Shape order: as the spec named them, then any unnamed shape by (N, K).
  std::vector<std::pair<std::int64_t, std::int64_t>> order;
  for (const auto& sn : store.shape_names(run_id)) order.emplace_back(sn.n, sn.k);
  auto rank = [&](std::int64_t n, std::int64_t k) {
    auto it = std::find(order.begin(), order.end(), std::make_pair(n, k));
    return it == order.end() ? order.size() : static_cast<std::size_t>(it - order.begin());
  };

  for (const db::WinnerRow& w : winners) {
    auto t = std::find_if(out.tables.begin(), out.tables.end(), [&](const KernelTable& x) {
      return x.kernel == w.kernel && x.dtype == w.dtype;
    });
    if (t == out.tables.end()) {
      KernelTable nt;
      nt.kernel = w.kernel;
      nt.dtype = w.dtype;
      if (w.kernel == "gemm_w4a16_nt" && w.dtype == "w4a16")
        nt.python_name = "_CFG";
      else if (w.kernel == "gemm_w4a8_nt" && w.dtype == "w4a8")
        nt.python_name = "_CFG_A8";
      else if (w.kernel == "gemm_w4a8fp8_nt" && w.dtype == "w4a8fp8")
        nt.python_name = "_CFG_W4A8FP8";  // seeds 002 / 003 have no table: named after the dtype
      else if (w.kernel == "gemm_mxfp4a8fp8_nt" && w.dtype == "mxfp4a8fp8")
        nt.python_name = "_CFG_MXFP4A8FP8";
      else
        nt.python_name = "_CFG_" + upper_ident(w.kernel + "_" + w.dtype);
      nt.cpp_name = ident(w.kernel + "_" + w.dtype);
      out.tables.push_back(std::move(nt));
      t = std::prev(out.tables.end());
    }
    auto s = std::find_if(t->shapes.begin(), t->shapes.end(),
                          [&](const ShapeTable& x) { return x.n == w.n && x.k == w.k; });
    if (s == t->shapes.end()) {
      t->shapes.push_back({w.n, w.k, store.shape_name(run_id, w.n, w.k), {}});
      s = std::prev(t->shapes.end());
    }
    s->bands.push_back({w.band_limit, w.m_measured, w.config, w.median_us, w.speedup_vs_bf16,
                        w.speedup_vs_fp8, w.remeasured});
  }
  for (auto& t : out.tables) {
    std::stable_sort(t.shapes.begin(), t.shapes.end(), [&](const auto& a, const auto& b) {
      const auto ra = rank(a.n, a.k), rb = rank(b.n, b.k);
      return ra != rb ? ra < rb : std::make_pair(a.n, a.k) < std::make_pair(b.n, b.k);
    });
    for (auto& s : t.shapes)
      std::sort(s.bands.begin(), s.bands.end(),
                [](const Band& a, const Band& b) { return a.m_limit < b.m_limit; });
  }
  std::stable_sort(out.tables.begin(), out.tables.end(), [](const auto& a, const auto& b) {
    const int ra = table_rank(a), rb = table_rank(b);
    return ra != rb ? ra < rb : std::tie(a.kernel, a.dtype) < std::tie(b.kernel, b.dtype);
  });
  out.a8_m = compute_a8_m(out.tables);
  return out;
}

std::string speedup_range(const ShapeTable& s) {
  if (s.bands.empty()) return {};
  const Band& lo = s.bands.front();
  const Band& hi = s.bands.back();
  if (lo.speedup_vs_fp8 && hi.speedup_vs_fp8)
    return fmt::format("{:.2f}x .. {:.2f}x", *lo.speedup_vs_fp8, *hi.speedup_vs_fp8);
  return fmt::format("{:.2f} .. {:.2f} us", lo.median_us, hi.median_us);
}

}  // namespace r4::report
