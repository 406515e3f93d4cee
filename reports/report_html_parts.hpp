// Sections of the HTML report that live in their own files (report_html_*.cpp), and the number
// formats they share with report_html.cpp. Internal to reports/.
#pragma once

#include <optional>
#include <string>

#include <fmt/core.h>

#include "reports/report_data.hpp"

namespace r4::report {

// A time in microseconds, 2 decimals, or an en dash for none.
[[nodiscard]] inline std::string fmt_us(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : "–";
}
// A ratio ("2.31×"), or an en dash for none.
[[nodiscard]] inline std::string fmt_x(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}×", *v) : "–";
}

// The plot of x floor against M per shape (floor_view.hpp), in a div with id "x-floor"; "" for a
// run without read floors.
[[nodiscard]] std::string html_x_floor_plot(const ReportData& d);

// Configs compiled, pruned, timed and bands won per (kernel, generation), in a table with id
// "generations"; "" for a run with none of these rows.
[[nodiscard]] std::string html_generations_table(const ReportData& d);

// "Decode steps": the chains, then one table row per (step, M, path) with id "steps" on the
// table; "" for a run without steps.
[[nodiscard]] std::string html_steps_section(const ReportData& d);

}  // namespace r4::report
