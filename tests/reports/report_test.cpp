#include "reports/report.hpp"

#include <regex>

#include <gtest/gtest.h>

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
  // Two speedup plots plus one time-vs-rank plot per shape, each with a legend and axis labels.
  EXPECT_EQ(count(html, "<svg "), 2u + 6u);
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

TEST(ReportHtml, InvalidWinnerIsShownNotHidden) {
  Fixture f;
  f.store.connection().exec("UPDATE winners SET wv = 99 WHERE id = (SELECT min(id) FROM winners)");
  const std::string html = report_html(f.store, f.run);
  EXPECT_NE(html.find("Invalid winner left out of the tables"), std::string::npos);
  EXPECT_NE(html.find("WV = 99 is outside 1..64"), std::string::npos);
}

TEST(ReportCsv, OneRowPerMeasurement) {
  Fixture f;
  const std::string csv = report_csv(f.store, f.run);
  EXPECT_EQ(csv.rfind("run_uuid,kernel,dtype,shape,n,k,m,wv,sk,mb,npw,nt,status,median_us,", 0),
            0u);
  EXPECT_EQ(count(csv, "\n"), static_cast<std::size_t>(f.store.counts(f.run).measurements) + 1);
  // Every winner is flagged exactly once.
  const std::regex winner_flag(",1,\\d+\n");
  EXPECT_EQ(static_cast<long>(std::distance(
                std::sregex_iterator(csv.begin(), csv.end(), winner_flag), std::sregex_iterator())),
            f.store.counts(f.run).winners);
  EXPECT_EQ(csv, report_csv(f.store, f.run));
}

}  // namespace
}  // namespace r4::report
