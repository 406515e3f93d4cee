// Human-readable reports of one run: pure functions of the database, like emit.
#pragma once

#include <string>

#include "db/store.hpp"

namespace r4::report {

// One self-contained HTML file (inline CSS and SVG plots, no scripts, nothing fetched): per shape
// and band the winning config, its median and 95% CI, GB/s and % of the measured ceiling, the
// speedups over bf16 and block-fp8 with their times, and how many configs were timed, raced out,
// failed and pruned; plots of speedup vs M and of time vs config rank. With floors and steps
// (schema v2): the launch floor, each time's distance to its shape's read floor and a plot of it
// against M, and the step table.
[[nodiscard]] std::string report_html(const db::Store& store, db::Id run);

// One row per (run, kernel, shape, M, config) measured, with a header row. floor_us is the run's
// read floor of the shape, x_floor = median_us / floor_us (empty for runs without floors).
[[nodiscard]] std::string report_csv(const db::Store& store, db::Id run);

// The run's decode steps, one row per (step, M, path), with a header row (only the header for a
// run without steps). `r4tune report --csv X.csv` writes it next to X.csv as X.steps.csv.
[[nodiscard]] std::string report_steps_csv(const db::Store& store, db::Id run);

}  // namespace r4::report
