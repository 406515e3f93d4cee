#include "reports/report.hpp"

#include <regex>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "reports/report_data.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::report {
namespace {

struct Fixture {
  testing::TempDir dir;
  db::Store store = db::Store::open(dir.file("run.db"));
  db::Id run = testing::fill_synthetic_run(store);
};

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(ReportHtml, SelfContainedWithPlotsAndNumbers) {
  Fixture f;
  const std::string html = report_html(f.store, f.run);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Offline: nothing to fetch, nothing to run.
  EXPECT_EQ(count(html, "<script"), 0u);
  EXPECT_EQ(count(html, " src="), 0u);
  EXPECT_EQ(count(html, " href="), 0u);
  EXPECT_EQ(count(html, "url("), 0u);
  EXPECT_EQ(count(html, "@import"), 0u);
  // Two speedup plots, the x-floor plot, and one time-vs-rank plot per shape, each with a legend
  // and axis labels.
  EXPECT_EQ(count(html, "<svg "), 3u + 6u);
  EXPECT_EQ(count(html, "config rank (fastest first)"), 6u);
  EXPECT_EQ(count(html, "M (rows, each band&#39;s top M)"), 2u);
  EXPECT_NE(html.find("Synthetic data."), std::string::npos);
  for (const char* name : {"qkv", "o", "gate_up", "down", "kernel_projection", "hidden_projection"})
    EXPECT_NE(html.find(std::string(">") + name + ": N = "), std::string::npos) << name;
  EXPECT_NE(html.find("95% CI"), std::string::npos);
  EXPECT_NE(html.find("4258 GB/s"), std::string::npos);
  // The qkv w4a16 winner's fp8 baseline time at M = 16 (from the H200 peer numbers).
  EXPECT_NE(html.find("17.2"), std::string::npos);
  EXPECT_EQ(html, report_html(f.store, f.run));
}

TEST(ReportHtml, FloorsAndSteps) {
  Fixture f;
  const std::string html = report_html(f.store, f.run);
  // The launch floor in the run's meta table, each shape's read floor under its heading.
  EXPECT_NE(html.find("<th class=\"l\">launch floor</th><td>0.51 µs per launch"),
            std::string::npos);
  EXPECT_EQ(count(html, "<p class=\"muted\">Read floor "), 6u);
  // qkv's: the median of samples around h200-floors-2026-11-30.md's 3.64 us.
  EXPECT_NE(html.find(fmt::format("Read floor {:.2f} µs",
                                  *load_report_data(f.store, f.run).floor_us(3072, 5120))),
            std::string::npos);
  // Every winners table has floor µs and × floor columns.
  EXPECT_EQ(count(html, "<th>floor µs</th><th>× floor</th>"), 6u);
  // The x-floor plot: one series per shape, against a 1x reference line.
  const auto xf = html.find("<div id=\"x-floor\">");
  ASSERT_NE(xf, std::string::npos);
  const std::string plot = html.substr(xf, html.find("</svg>", xf) - xf);
  EXPECT_NE(plot.find("Best 4-bit time over the read floor vs M"), std::string::npos);
  EXPECT_EQ(count(plot, "<polyline "), 6u);
  EXPECT_NE(plot.find("1× (read floor)"), std::string::npos);
  // The step table: 4 M x 6 paths, the failed one marked with its reason.
  const auto st = html.find("<table id=\"steps\">");
  ASSERT_NE(st, std::string::npos);
  const std::string table = html.substr(st, html.find("</table>", st) - st);
  EXPECT_EQ(count(table, "<tr"), 1u + 24u);
  EXPECT_EQ(count(table, ">failed</span>"), 1u);
  EXPECT_NE(table.find("no block-fp8 algorithm for M = 1 (synthetic)"), std::string::npos);
  EXPECT_NE(html.find("qkv → o → gate_up → down → kernel_projection → hidden_projection"),
            std::string::npos);
  EXPECT_NE(table.find("4-bit winners, PDL"), std::string::npos);
}

// A run stored before schema v2 (the frozen v1 dump, opened read-only as the read commands do):
// the report has no floor, x-floor or step parts, and nothing breaks.
TEST(ReportHtml, OldRunWithoutFloorsOrSteps) {
  testing::TempDir dir;
  const std::string path = dir.file("v1.db");
  {
    db::Connection c(path, db::OpenMode::read_write_create);
    c.exec(testing::read_file(std::string(R4_SOURCE_ROOT) + "/tests/db/fixtures/schema_v1.sql"));
  }
  const auto store = db::Store::open_read_only(path);
  const db::Id run = store.resolve_run("latest").id;
  const std::string html = report_html(store, run);
  EXPECT_EQ(html.find("x-floor"), std::string::npos);
  EXPECT_EQ(html.find("Decode steps"), std::string::npos);
  EXPECT_EQ(html.find("launch floor"), std::string::npos);
  EXPECT_EQ(html.find("Read floor"), std::string::npos);
  EXPECT_EQ(count(html, "<svg "), 2u + 2u);  // two speedup plots, two shapes' rank plots
  EXPECT_NE(html.find("<th>floor µs</th>"), std::string::npos);  // the column, empty
  const std::string csv = report_csv(store, run);
  EXPECT_NE(csv.find(",pct_of_ceiling,floor_us,x_floor,"), std::string::npos);
  EXPECT_EQ(report_steps_csv(store, run).find('\n'), report_steps_csv(store, run).size() - 1);
}

TEST(ReportHtml, InvalidWinnerIsShownNotHidden) {
  Fixture f;
  f.store.connection().exec("UPDATE winners SET wv = 99 WHERE id = (SELECT min(id) FROM winners)");
  const std::string html = report_html(f.store, f.run);
  EXPECT_NE(html.find("Invalid winner left out of the tables"), std::string::npos);
  EXPECT_NE(html.find("WV = 99 is outside 1..64"), std::string::npos);
}

// Both generations race in one group per (shape, M): the report says which won each band (the
// winners tables' generation column and the summary cells) and counts configs per generation.
TEST(ReportHtml, GenerationsAreShown) {
  Fixture f;
  const std::string html = report_html(f.store, f.run);
  EXPECT_EQ(count(html, "<th class=\"l\">generation</th><th>config (WV, SK, MB, NPW, NT[, ST])"),
            6u);
  const auto winners = f.store.winners(f.run);
  long won[2] = {0, 0};
  for (const auto& w : winners) ++won[w.config.gen];
  ASSERT_GT(won[db::kGenSm90a], 0) << "the fixture has no sm90a winner";
  ASSERT_GT(won[db::kGenMmaSync], 0) << "the fixture has no mma_sync winner";
  // One row per winner in the per-shape tables, its generation in its own cell and its knobs in
  // that generation's order (six with ST for sm90a).
  EXPECT_EQ(static_cast<long>(count(html, "<td class=\"l\">sm90a</td><td>(")), won[db::kGenSm90a]);
  EXPECT_EQ(static_cast<long>(count(html, "<td class=\"l\">mma_sync</td><td>(")),
            won[db::kGenMmaSync]);
  EXPECT_TRUE(std::regex_search(
      html, std::regex("<td class=\"l\">sm90a</td><td>\\(\\d, \\d, \\d, \\d, \\d, \\d\\)</td>")));
  // The per-generation counts: a row per (kernel, generation), bands won summing to the winners.
  const auto gt = html.find("<table id=\"generations\">");
  ASSERT_NE(gt, std::string::npos);
  const std::string table = html.substr(gt, html.find("</table>", gt) - gt);
  EXPECT_EQ(count(table, "<tr>"), 1u + 4u);
  const std::regex row(
      "<td class=\"l\">(\\w+)</td><td class=\"l\">(\\w+)</td><td>(\\d+)</td>"
      "<td>(\\d+)</td><td>(\\d+)</td><td>(\\d+)</td>");
  long bands = 0, compiled = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row);
       it != std::sregex_iterator(); ++it) {
    bands += std::stol((*it)[6]);
    compiled += std::stol((*it)[3]);
    EXPECT_GT(std::stol((*it)[5]), 0) << (*it)[0];  // configs timed
  }
  EXPECT_EQ(bands, static_cast<long>(winners.size()));
  EXPECT_EQ(compiled, f.store.counts(f.run).compiles);
}

TEST(ReportCsv, OneRowPerMeasurement) {
  Fixture f;
  const std::string csv = report_csv(f.store, f.run);
  EXPECT_EQ(
      csv.rfind("run_uuid,kernel,dtype,shape,n,k,m,wv,sk,mb,npw,nt,gen,st,status,median_us,", 0),
      0u);
  // Both generations' rows, each with its generation's name and ST.
  EXPECT_TRUE(std::regex_search(csv, std::regex(",\\d+,[01],mma_sync,0,(ok|failed|raced_out),")));
  EXPECT_TRUE(std::regex_search(csv, std::regex(",[48],\\d+,[12],[12],[01],sm90a,[468],ok,")));
  EXPECT_EQ(count(csv, "\n"), static_cast<std::size_t>(f.store.counts(f.run).measurements) + 1);
  // Every winner is flagged exactly once.
  const std::regex winner_flag(",1,\\d+\n");
  EXPECT_EQ(static_cast<long>(std::distance(
                std::sregex_iterator(csv.begin(), csv.end(), winner_flag), std::sregex_iterator())),
            f.store.counts(f.run).winners);
  EXPECT_EQ(csv, report_csv(f.store, f.run));
  // floor_us and x_floor after pct_of_ceiling, on every row of a shape with a read floor.
  EXPECT_NE(csv.find(",n_samples,gbps,pct_of_ceiling,floor_us,x_floor,bf16_us,"),
            std::string::npos);
  const ReportData d = load_report_data(f.store, f.run);
  const auto& m = d.measurements.front();
  ASSERT_TRUE(m.median_us);
  const std::string cells =
      fmt::format(",{},{:.4f},", *d.floor_us(m.n, m.k), *m.median_us / *d.floor_us(m.n, m.k));
  EXPECT_NE(csv.find(cells), std::string::npos) << cells;
}

TEST(ReportCsv, StepsCsvHasOneRowPerStep) {
  Fixture f;
  const std::string csv = report_steps_csv(f.store, f.run);
  EXPECT_EQ(csv.rfind("run_uuid,step,m,path,status,median_us,ci_low_us,ci_high_us,n_samples,"
                      "launches,speedup_vs_bf16,speedup_vs_fp8,floor_sum_us,x_floor_sum,error\n",
                      0),
            0u);
  EXPECT_EQ(count(csv, "\n"), 1u + 24u);
  EXPECT_EQ(count(csv, ",failed,"), 1u);
  EXPECT_NE(csv.find(",fp8_block,failed,,,,0,12,,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("no block-fp8 algorithm for M = 1 (synthetic)\n"), std::string::npos);
  EXPECT_EQ(csv, report_steps_csv(f.store, f.run));
}

}  // namespace
}  // namespace r4::report
