// The HTML report's "Decode steps" section: what one decode step costs on each path.
#include <fmt/core.h>

#include "reports/html.hpp"
#include "reports/report_html_parts.hpp"
#include "reports/step_view.hpp"

namespace r4::report {

namespace {

// What each path is, for the table's first column.
const char* path_label(db::StepPath p) {
  switch (p) {
    case db::StepPath::w4:
      return "4-bit winners";
    case db::StepPath::w4_pdl:
      return "4-bit winners, PDL";
    case db::StepPath::bf16:
      return "bf16 (vendor)";
    case db::StepPath::fp8_block:
      return "block-fp8 (vendor)";
    case db::StepPath::read_floor:
      return "read floors";
    case db::StepPath::read_floor_pdl:
      return "read floors, PDL";
  }
  return "?";
}

}  // namespace

std::string html_steps_section(const ReportData& d) {
  const StepTable t = step_table(d);
  if (t.lines.empty()) return {};
  std::string o = "<h2 id=\"decode-steps\">Decode steps</h2>\n";
  for (const auto& c : t.chains) {
    std::string chain;
    for (const auto& s : c.shapes) chain += (chain.empty() ? "" : " → ") + html_escape(s);
    o += fmt::format(
        "<p><b>{}</b>: {} <span class=\"muted\">(sum of read floors {} µs)</span></p>\n",
        html_escape(c.name), chain.empty() ? "chain not recorded" : chain, fmt_us(c.floor_sum_us));
  }
  o += "<table id=\"steps\">\n<tr><th class=\"l\">step</th><th>M</th><th class=\"l\">path</th>"
       "<th>µs per step [95% CI]</th><th>× bf16</th><th>× fp8</th><th>× read floors</th>"
       "<th>launches</th><th class=\"l\">kernels</th></tr>\n";
  for (const auto& l : t.lines) {
    const auto& r = l.row;
    const bool w4 = r.path == db::StepPath::w4 || r.path == db::StepPath::w4_pdl;
    std::string time;
    if (r.status == db::StepStatus::failed) {
      time = fmt::format("<span class=\"bad\" title=\"{}\">failed</span>", html_escape(l.error));
    } else {
      time = fmt_us(r.median_us);
      if (r.ci_low_us && r.ci_high_us)
        time += fmt::format(" <span class=\"muted\">[{:.2f}, {:.2f}]</span>", *r.ci_low_us,
                            *r.ci_high_us);
    }
    const std::string what = r.status == db::StepStatus::failed ? "failed: " + l.error : l.kernels;
    o += fmt::format(
        "<tr{}><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
        w4 ? " class=\"dispatched\"" : "", html_escape(r.name), r.m, path_label(r.path), time,
        fmt_x(l.speedup_vs_bf16), fmt_x(l.speedup_vs_fp8), fmt_x(l.x_floor_sum), r.launches,
        html_escape(what));
  }
  o += "</table>\n<p class=\"muted\">A step is the spec's [step] chain of shapes launched back to "
       "back, each launch reading the previous one's output, timed as graph replays over a pool "
       "of steps (every launch reads its weights from DRAM). PDL: programmatic dependent launch, "
       "each kernel streaming its weights while the previous one drains. × bf16 and × fp8: the "
       "bf16 and block-fp8 chains' time at the same step and M over this one's; × read floors: "
       "this time over the sum of the chain's read floors.</p>\n";
  return o;
}

}  // namespace r4::report
