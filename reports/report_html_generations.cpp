// The HTML report's count of configs per kernel generation (kernels/config.hpp): both generations
// of a kernel race in one group per (shape, M), so a run's winners may be of either, and this
// table says how much of each the run planned, timed and chose.
#include <map>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "reports/html.hpp"
#include "reports/report_html_parts.hpp"

namespace r4::report {

std::string html_generations_table(const ReportData& d) {
  struct Counts {
    int compiled = 0, pruned = 0, won = 0;
    std::set<db::Config> timed;
  };
  std::map<std::tuple<std::string, std::string, int>, Counts> by;  // (dtype, kernel, gen)
  std::map<std::string, std::string> dtype_of;                     // kernel -> dtype
  for (const auto& m : d.measurements) dtype_of.emplace(m.kernel, m.dtype);
  for (const auto& w : d.winners) dtype_of.emplace(w.kernel, w.dtype);
  auto key = [&](const std::string& kernel, int gen) {
    auto it = dtype_of.find(kernel);
    return std::make_tuple(it == dtype_of.end() ? std::string() : it->second, kernel, gen);
  };
  for (const auto& c : d.compiles) {
    auto& n = by[key(c.kernel, c.config.gen)];
    ++n.compiled;
    if (c.status != db::CompileStatus::ok) ++n.pruned;
  }
  for (const auto& m : d.measurements)
    if (m.status != db::MeasurementStatus::failed)
      by[key(m.kernel, m.config.gen)].timed.insert(m.config);
  for (const auto& w : d.winners)
    if (w.problem.empty()) ++by[key(w.kernel, w.config.gen)].won;
  if (by.empty()) return {};
  std::string o =
      "<table id=\"generations\">\n<tr><th class=\"l\">kernel</th><th class=\"l\">generation</th>"
      "<th>configs compiled</th><th>pruned</th><th>configs timed</th><th>bands won</th></tr>\n";
  for (const auto& [k, n] : by)
    o += fmt::format(
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        html_escape(std::get<1>(k)), db::generation_name(std::get<2>(k)), n.compiled, n.pruned,
        n.timed.size(), n.won);
  o += "</table>\n<p class=\"muted\">Configs per kernel generation (mma_sync: the seeds' (WV, SK, "
       "MB, NPW, NT); sm90a: bulk-copy ring and wgmma, (WV, SK, MB, NPW, NT, ST); ldg: register "
       "batches straight from global memory, (WV, SK, MB, NPW, NT, ST)). Every generation of a "
       "kernel races in one group at each (shape, M); bands won counts the winners of this "
       "run.</p>\n";
  return o;
}

}  // namespace r4::report
