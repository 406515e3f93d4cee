#include "reports/step_view.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/core.h>

namespace r4::report {

namespace {

// "gemm_w4a16_nt ×4, gemm_w4a8_nt ×2", in chain order of first appearance; a link of the sm90a
// generation counts apart, "gemm_w4a16_nt sm90a ×2" (an mma_sync link, or a chain written before
// generations had names, shows the bare kernel name).
std::string kernel_summary(const db::StepDetail& detail) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& l : detail.chain) {
    std::string k = l.kernel.empty() ? "?" : l.kernel;
    if (db::parse_generation(l.generation).value_or(db::kGenMmaSync) != db::kGenMmaSync)
      k += " " + l.generation;
    auto it =
        std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == k; });
    if (it == counts.end())
      counts.emplace_back(k, 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [k, n] : counts) out += fmt::format("{}{} ×{}", out.empty() ? "" : ", ", k, n);
  return out;
}

// The sum of the chain's read floors, or none when one is missing. A link names its shape by N
// and K; a link with only a name is looked up among the run's shape names.
std::optional<double> floor_sum(const ReportData& d, const db::StepDetail& detail) {
  if (detail.chain.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& l : detail.chain) {
    std::int64_t n = l.n, k = l.k;
    if (n <= 0 || k <= 0)
      for (const auto& s : d.shapes)
        if (s.name == l.shape) n = s.n, k = s.k;
    const auto f = d.floor_us(n, k);
    if (!f) return std::nullopt;
    sum += *f;
  }
  return sum;
}

}  // namespace

StepTable step_table(const ReportData& d) {
  StepTable t;
  std::map<std::string, std::size_t> chain_of;  // step name -> index into t.chains
  for (const auto& r : d.steps) {
    auto [it, fresh] = chain_of.try_emplace(r.name, t.chains.size());
    if (fresh) t.chains.push_back({r.name, {}, std::nullopt});
    StepChain& c = t.chains[it->second];
    if (!c.shapes.empty()) continue;
    const auto detail = db::parse_step_detail(r.detail);
    for (const auto& l : detail.chain)
      c.shapes.push_back(l.shape.empty() ? d.shape_name(l.n, l.k) : l.shape);
    c.floor_sum_us = floor_sum(d, detail);
  }
  auto time_of = [&](const std::string& name, int m, db::StepPath p) -> std::optional<double> {
    for (const auto& r : d.steps)
      if (r.name == name && r.m == m && r.path == p && r.status == db::StepStatus::ok)
        return r.median_us;
    return std::nullopt;
  };
  for (const auto& r : d.steps) {
    StepLine l;
    l.row = r;
    const auto detail = db::parse_step_detail(r.detail);
    l.error = detail.error;
    l.kernels = kernel_summary(detail);
    l.floor_sum_us = t.chains[chain_of.at(r.name)].floor_sum_us;
    if (r.status == db::StepStatus::ok && r.median_us) {
      if (auto bf = time_of(r.name, r.m, db::StepPath::bf16))
        l.speedup_vs_bf16 = *bf / *r.median_us;
      if (auto fp = time_of(r.name, r.m, db::StepPath::fp8_block))
        l.speedup_vs_fp8 = *fp / *r.median_us;
      if (l.floor_sum_us) l.x_floor_sum = *r.median_us / *l.floor_sum_us;
    }
    t.lines.push_back(std::move(l));
  }
  return t;
}

}  // namespace r4::report
