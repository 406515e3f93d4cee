// Human-readable reports of one run: pure functions of the database, like emit.
#pragma once

#include <string>

#include "db/store.hpp"

namespace r4::report {

// One self-contained HTML file (inline CSS and SVG plots, no scripts, nothing fetched): per shape
// and band the winning config, its median and 95% CI, GB/s and % of the measured ceiling, the
// speedups over bf16 and block-fp8 with their times, and how many configs were timed, raced out,
// failed and pruned; plots of speedup vs M and of time vs config rank.
[[nodiscard]] std::string report_html(const db::Store& store, db::Id run);

// One row per (run, kernel, shape, M, config) measured, with a header row.
[[nodiscard]] std::string report_csv(const db::Store& store, db::Id run);

}  // namespace r4::report
