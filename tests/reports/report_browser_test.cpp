// Renders the HTML report in headless Chromium: it must load with no console error, run a probe
// script injected by this test, and produce a non-empty screenshot. Labelled `browser`; skipped
// when /usr/bin/chromium is absent.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>

#include "reports/report.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::report {
namespace {

using testing::read_file;

constexpr const char* kChromium = "/usr/bin/chromium";

// The probe: records script errors from the start, then at the end writes a marker element
// (what --dump-dom reads back), sets the title, and logs one console line as a positive control
// that console output reaches the log at all.
constexpr const char* kHeadProbe =
    "<script>window.r4errors=[];window.addEventListener('error',function(e){"
    "window.r4errors.push(String(e.message));});</script>";
// It also reports what the floors and steps parts drew: the x-floor plot's lines, the step
// table's rows, and whether both have a laid-out, non-empty box (drawn=1).
constexpr const char* kBodyProbe =
    "<script>document.title='ok';var m=document.createElement('div');m.id='r4-marker';"
    "function box(q){var e=document.querySelector(q);if(!e)return 0;"
    "var r=e.getBoundingClientRect();return r.width>0&&r.height>0?1:0;}"
    "m.textContent='r4-ok svg='+document.querySelectorAll('svg').length+' errors='+"
    "window.r4errors.length+' xfloor='+document.querySelectorAll('#x-floor svg polyline').length+"
    "' steps='+document.querySelectorAll('#steps tr').length+' drawn='+"
    "(box('#x-floor svg')*box('#steps'));"
    "document.body.appendChild(m);console.log('r4-probe-done');</script>";

int sh(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string chromium(const testing::TempDir& dir, const std::string& profile,
                     const std::string& extra) {
  return std::string("timeout 90 ") + kChromium +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
         " --disable-background-networking --disable-component-update --disable-sync"
         " --user-data-dir='" +
         dir.file(profile) + "' --enable-logging=stderr --v=0 " + extra;
}

TEST(ReportBrowser, RendersWithoutConsoleErrors) {
  if (!std::filesystem::exists(kChromium)) GTEST_SKIP() << kChromium << " not installed";
  testing::TempDir dir;
  auto store = db::Store::open(dir.file("run.db"));
  const db::Id run = testing::fill_synthetic_run(store);
  std::string html = report_html(store, run);
  const auto head = html.find("</head>");
  ASSERT_NE(head, std::string::npos);
  html.insert(head, kHeadProbe);
  const auto body = html.rfind("</body>");
  ASSERT_NE(body, std::string::npos);
  html.insert(body, kBodyProbe);
  const std::string page = dir.file("report.html");
  testing::write_file(page, html);
  const std::string url = "file://" + page;

  ASSERT_EQ(sh(chromium(dir, "p1",
                        "--dump-dom '" + url + "' > '" + dir.file("dom.html") + "' 2> '" +
                            dir.file("dom.err") + "'")),
            0)
      << read_file(dir.file("dom.err"));
  const std::string dom = read_file(dir.file("dom.html"));
  EXPECT_NE(dom.find("<title>ok</title>"), std::string::npos);
  // 9 plots (two speedups, x floor, six ranks); the x-floor plot's six shapes; the step table's
  // header and 4 M x 6 paths.
  EXPECT_NE(dom.find("<div id=\"r4-marker\">r4-ok svg=9 errors=0 xfloor=6 steps=25 drawn=1</div>"),
            std::string::npos)
      << dom.substr(dom.size() > 400 ? dom.size() - 400 : 0);

  // Console: the probe's own line must be there (logging works); any other console line is a
  // message the report produced, which it must not.
  const std::string err = read_file(dir.file("dom.err"));
  EXPECT_NE(err.find("r4-probe-done"), std::string::npos) << err;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (line.find("CONSOLE") != std::string::npos) {
      EXPECT_NE(line.find("r4-probe-done"), std::string::npos) << line;
    }

  const std::string png = dir.file("out.png");
  ASSERT_EQ(sh(chromium(dir, "p2",
                        "--screenshot='" + png + "' --window-size=1280,2000 '" + url +
                            "' > /dev/null 2> '" + dir.file("shot.err") + "'")),
            0)
      << read_file(dir.file("shot.err"));
  const std::string bytes = read_file(png);
  ASSERT_GT(bytes.size(), 10000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

}  // namespace
}  // namespace r4::report
