// The step table of a run (schema v2): per step name, M and path the time per decode step, the
// speedups over the bf16 and block-fp8 chains of the same step and M, and the distance to the sum
// of the chain's read floors. Shared by the HTML report, the steps CSV and `r4tune db show`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/step_detail.hpp"
#include "reports/report_data.hpp"

namespace r4::report {

struct StepLine {
  db::StepRow row;
  std::optional<double> speedup_vs_bf16;  // bf16 chain's time / this time, same name and M
  std::optional<double> speedup_vs_fp8;   // block-fp8 chain's likewise
  std::optional<double> floor_sum_us;     // sum of the chain's read floors (same for all paths)
  std::optional<double> x_floor_sum;      // this time / floor_sum_us
  std::string error;                      // why a failed step failed
  std::string kernels;                    // the chain's kernels, e.g. "gemm_w4a16_nt ×6"
};

struct StepChain {
  std::string name;
  std::vector<std::string> shapes;     // chain order, repeats kept
  std::optional<double> floor_sum_us;  // none when a shape of the chain has no read floor
};

struct StepTable {
  std::vector<StepChain> chains;  // one per step name, in the order of `lines`
  std::vector<StepLine> lines;    // by name, M, then path (db::kStepPaths order)
};

// Chain positions come from the rows' detail JSON (db/step_detail.hpp): the first row of a step
// name whose detail lists a chain gives the chain of every path of that name (a failed row may
// carry none). Empty without steps.
[[nodiscard]] StepTable step_table(const ReportData& d);

}  // namespace r4::report
