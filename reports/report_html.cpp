// The HTML report. Everything is inline (CSS, SVG); no script, font or image is fetched, so the
// file works offline and renders the same anywhere.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/core.h>

#include "reports/html.hpp"
#include "reports/report.hpp"
#include "reports/report_data.hpp"
#include "reports/report_html_parts.hpp"
#include "reports/svg_plot.hpp"
#include "reports/tables.hpp"

namespace r4::report {

namespace {

constexpr const char* kCss = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px;
       color: #1d1d1d; max-width: 1240px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { font-size: 15px; margin-bottom: 6px; }
table { border-collapse: collapse; font-size: 12px; margin: 8px 0 12px 0; }
th, td { border: 1px solid #d4d4d4; padding: 3px 5px; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; white-space: normal; }
td.l, th.l { text-align: left; }
tr.dispatched td { background: #eef6ff; font-weight: 600; }
.warn { background: #fff4e5; border: 1px solid #e69f00; padding: 8px 12px; margin: 10px 0; }
.bad { color: #b00020; }
.meta td { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
.muted { color: #666; font-size: 12px; }
)css";

}  // namespace

std::string report_html(const db::Store& store, db::Id run_id) {
  const ReportData d = load_report_data(store, run_id);
  std::vector<db::WinnerRow> valid;
  for (const auto& w : d.winners)
    if (w.problem.empty()) valid.push_back(w);
  const RunTables t = build_tables(store, run_id, valid);

  const std::vector<ReportShape>& shapes = d.shapes;
  std::set<std::pair<std::string, std::string>> kernel_set;
  for (const auto& m : d.measurements) kernel_set.insert({m.kernel, m.dtype});
  std::vector<std::pair<std::string, std::string>> kernels(kernel_set.begin(), kernel_set.end());
  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
    auto r = [](const std::string& dt) { return dt == "w4a16" ? 0 : dt == "w4a8" ? 1 : 2; };
    return r(a.second) < r(b.second);
  });
  // The dispatched kernel at M: w4a16 up to a8_m, w4a8 above (when both exist).
  const bool have_a8 =
      std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k.second == "w4a8"; });
  auto dispatched_dtype = [&](int m) { return have_a8 && m > t.a8_m ? "w4a8" : "w4a16"; };
  // Winners per (dtype kernel) and shape, ascending band.
  auto winners_of = [&](const std::string& kernel, const std::string& dtype, std::int64_t n,
                        std::int64_t k) {
    std::vector<const db::WinnerRow*> out;
    for (const auto& w : d.winners)
      if (w.kernel == kernel && w.dtype == dtype && w.n == n && w.k == k) out.push_back(&w);
    std::sort(out.begin(), out.end(),
              [](auto* a, auto* b) { return a->band_limit < b->band_limit; });
    return out;
  };
  std::set<int> band_set;
  for (const auto& w : d.winners) band_set.insert(w.band_limit);
  const std::vector<int> bands(band_set.begin(), band_set.end());

  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += fmt::format("<title>r4tune report: {} on {}</title>\n", html_escape(d.run.spec_name),
                   html_escape(t.device_label));
  o += fmt::format("<style>{}</style>\n</head>\n<body>\n", kCss);
  o += fmt::format("<h1>r4tune report: {}</h1>\n", html_escape(d.run.spec_name));
  o += fmt::format("<p class=\"muted\">run {} on {}, started {}</p>\n", html_escape(d.run.uuid),
                   html_escape(t.device_label), html_escape(d.run.started_at));
  if (d.run.notes.find("SYNTHETIC") != std::string::npos)
    o += fmt::format("<div class=\"warn\" id=\"synthetic\"><b>Synthetic data.</b> {}</div>\n",
                     html_escape(d.run.notes));
  if (d.run.status != db::RunStatus::complete)
    o += fmt::format(
        "<div class=\"warn\">This run is <b>{}</b>: its tables may be incomplete.</div>\n",
        db::to_string(d.run.status));
  for (const auto& w : d.winners)
    if (!w.problem.empty())
      o += fmt::format("<div class=\"warn bad\">Invalid winner left out of the tables: {}</div>\n",
                       html_escape(w.problem));

  // Provenance.
  o += "<h2>Run and device</h2>\n<table class=\"meta\">\n";
  auto meta = [&](const std::string& k, const std::string& v) {
    o += fmt::format("<tr><th class=\"l\">{}</th><td>{}</td></tr>\n", html_escape(k),
                     html_escape(v));
  };
  meta("run", fmt::format("{} (status {})", d.run.uuid, db::to_string(d.run.status)));
  meta("spec", d.run.spec_name);
  meta("started / finished", d.run.started_at + " / " + d.run.finished_at);
  meta("r4tune / git", d.run.r4tune_version + " / " + d.run.git_commit);
  meta("host", d.run.host);
  if (d.device) {
    meta("device", fmt::format("{} ({}, {} SMs, L2 {:.0f} MiB, LLC {:.0f} MiB)", d.device->name,
                               d.device->arch, d.device->multiprocessors,
                               static_cast<double>(d.device->l2_bytes) / (1 << 20),
                               static_cast<double>(d.device->llc_bytes) / (1 << 20)));
    meta("clocks", fmt::format("SM {} MHz, memory {} MHz, {}-bit bus", d.device->sm_clock_mhz,
                               d.device->memory_clock_mhz, d.device->memory_bus_bits));
    meta("driver / runtime / compiler", d.device->driver_version + " / " +
                                            d.device->runtime_version + " / " +
                                            d.device->compiler_version);
  }
  meta("streaming-read ceiling",
       d.ceiling_gbps ? fmt::format("{:.0f} GB/s (measured in this run)", *d.ceiling_gbps)
                      : "not measured");
  if (const auto* lf = d.launch_floor())
    meta("launch floor", fmt::format("{:.2f} µs per launch (an empty kernel, graph-replayed, "
                                     "measured in this run)",
                                     lf->median_us));
  meta("w4a8 takes over above M", std::to_string(t.a8_m));
  o += "</table>\n";

  // Summary and speedup plots.
  o += "<h2>Summary: dispatched kernel's speedup over block-fp8 (and bf16)</h2>\n<table>\n<tr>"
       "<th class=\"l\">shape</th><th>N</th><th>K</th>";
  for (int b : bands) o += fmt::format("<th>M ≤ {}</th>", b);
  o += "</tr>\n";
  Plot sp_fp8;
  sp_fp8.title = "Speedup over block-fp8 vs M";
  sp_fp8.x_label = "M (rows, each band's top M)";
  sp_fp8.y_label = "speedup (×)";
  sp_fp8.y_reference = 1.0;
  sp_fp8.y_reference_label = "1× (parity)";
  sp_fp8.x_ticks.assign(bands.begin(), bands.end());
  Plot sp_bf16 = sp_fp8;
  sp_bf16.title = "Speedup over bf16 vs M";
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const auto& s = shapes[si];
    o += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td>", html_escape(s.name), s.n,
                     s.k);
    Series a{s.name, palette(si), false, {}}, b{s.name, palette(si), false, {}};
    for (int band : bands) {
      const db::WinnerRow* hit = nullptr;
      for (const auto& [kn, dt] : kernels)
        if (dt == dispatched_dtype(band))
          for (auto* w : winners_of(kn, dt, s.n, s.k))
            if (w->band_limit == band && w->problem.empty()) hit = w;
      if (!hit) {
        o += "<td>–</td>";
        continue;
      }
      o += fmt::format("<td title=\"{} {}\">{} <span class=\"muted\">({}){}</span></td>",
                       hit->kernel, db::to_string(hit->config), fmt_x(hit->speedup_vs_fp8),
                       fmt_x(hit->speedup_vs_bf16),
                       hit->config.gen == db::kGenMmaSync
                           ? ""
                           : fmt::format(" {}", db::generation_name(hit->config.gen)));
      if (hit->speedup_vs_fp8) a.points.emplace_back(hit->m_measured, *hit->speedup_vs_fp8);
      if (hit->speedup_vs_bf16) b.points.emplace_back(hit->m_measured, *hit->speedup_vs_bf16);
    }
    o += "</tr>\n";
    sp_fp8.series.push_back(std::move(a));
    sp_bf16.series.push_back(std::move(b));
  }
  o += "</table>\n<p class=\"muted\">Dispatched: w4a16 up to M = " + std::to_string(t.a8_m) +
       ", w4a8 above. Cells: speedup over block-fp8 (over bf16), both measured at the band's top M "
       "in this run; a winner of the sm90a generation says so.</p>\n";
  o += html_generations_table(d);
  o += "<div class=\"plots\">\n" + svg_line_plot(sp_fp8) + svg_line_plot(sp_bf16) + "</div>\n";
  o += html_x_floor_plot(d);
  o += html_steps_section(d);

  // Per shape.
  for (const auto& s : shapes) {
    o += fmt::format("<h2 id=\"shape-{}x{}\">{}: N = {}, K = {}</h2>\n", s.n, s.k,
                     html_escape(s.name), s.n, s.k);
    const auto* floor = d.read_floor(s.n, s.k);
    if (floor)
      o += fmt::format(
          "<p class=\"muted\">Read floor {:.2f} µs{} ({:.2f} MB of packed weight and scales "
          "streamed once, launch and tail included).</p>\n",
          floor->median_us, floor->gbps ? fmt::format(", {:.0f} GB/s", *floor->gbps) : "",
          static_cast<double>(floor->bytes) / 1e6);
    o += "<table>\n<tr><th>band M ≤</th><th>M</th><th class=\"l\">kernel</th>"
         "<th class=\"l\">generation</th><th>config (WV, SK, MB, NPW, NT[, ST])</th>"
         "<th>median µs [95% CI]</th><th>GB/s</th><th>% ceiling</th>"
         "<th>floor µs</th><th>× floor</th>"
         "<th>bf16 µs</th><th>× bf16</th><th>fp8 µs</th><th>× fp8</th><th>timed</th>"
         "<th>raced out</th><th>failed</th><th>pruned</th></tr>\n";
    Plot rank;
    rank.title = fmt::format("{}: time vs config rank at each band's top M", s.name);
    rank.x_label = "config rank (fastest first)";
    rank.y_label = "median time (µs)";
    std::size_t series_i = 0;
    for (int band : bands) {
      for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
        const auto& [kn, dt] = kernels[ki];
        const db::WinnerRow* w = nullptr;
        for (auto* c : winners_of(kn, dt, s.n, s.k))
          if (c->band_limit == band) w = c;
        if (!w) continue;
        const int m = w->m_measured;
        int timed = 0, raced = 0, failed = 0, pruned = 0;
        std::vector<double> times;
        for (const auto& me : d.measurements) {
          if (me.kernel != kn || me.dtype != dt || me.n != s.n || me.k != s.k || me.m != m)
            continue;
          if (me.status == db::MeasurementStatus::ok) ++timed;
          if (me.status == db::MeasurementStatus::raced_out) ++raced;
          if (me.status == db::MeasurementStatus::failed) ++failed;
          if (me.status != db::MeasurementStatus::failed && me.median_us)
            times.push_back(*me.median_us);
        }
        for (const auto& c : d.compiles)
          if (c.kernel == kn && c.status != db::CompileStatus::ok) ++pruned;
        const auto* meas = w->measurement_id ? d.measurement(*w->measurement_id) : nullptr;
        const auto* bf = d.baseline(db::BaselineKind::bf16, s.n, s.k, m);
        const auto* fp = d.baseline(db::BaselineKind::fp8_block, s.n, s.k, m);
        const bool disp = dt == dispatched_dtype(band);
        std::string ci;
        if (meas && meas->ci_low_us && meas->ci_high_us)
          ci = fmt::format(" <span class=\"muted\">[{:.2f}, {:.2f}]</span>", *meas->ci_low_us,
                           *meas->ci_high_us);
        o += fmt::format(
            "<tr{}><td>{}</td><td>{}</td><td class=\"l\">{}{}</td><td class=\"l\">{}</td>"
            "<td>{}</td><td>{:.2f}{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            disp ? " class=\"dispatched\"" : "", band, m, html_escape(kn),
            w->problem.empty() ? "" : " <span class=\"bad\">(invalid)</span>",
            db::generation_name(w->config.gen), db::knob_tuple(w->config), w->median_us, ci,
            meas && meas->gbps ? fmt::format("{:.0f}", *meas->gbps) : "–",
            meas && meas->pct_of_ceiling ? fmt::format("{:.1f}%", *meas->pct_of_ceiling) : "–",
            fmt_us(d.floor_us(s.n, s.k)), fmt_x(d.x_floor(w->median_us, s.n, s.k)),
            bf ? fmt_us(bf->median_us) : "–", fmt_x(w->speedup_vs_bf16),
            fp ? fmt_us(fp->median_us) : "–", fmt_x(w->speedup_vs_fp8), timed, raced, failed,
            pruned);
        std::sort(times.begin(), times.end());
        Series sr{fmt::format("M={} {}", m, dt), palette(series_i / kernels.size()), ki > 0, {}};
        for (std::size_t i = 0; i < times.size(); ++i)
          sr.points.emplace_back(static_cast<double>(i + 1), times[i]);
        rank.series.push_back(std::move(sr));
        ++series_i;
      }
    }
    o += "</table>\n";
    o += "<div class=\"plots\">\n" + svg_line_plot(rank) + "</div>\n";
  }
  o += fmt::format(
      "<p class=\"muted\">Generated by r4tune from run {} ({} measurements). Highlighted rows are "
      "the kernel r4d dispatches at that band. Pruned: compiles this run discarded for spills or "
      "resources; failed: configs that failed their correctness check or crashed; raced out: "
      "dropped early as clearly slower than the best so far.</p>\n",
      html_escape(d.run.uuid), d.measurements.size());
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace r4::report
