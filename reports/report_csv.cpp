#include <fmt/core.h>

#include "db/csv.hpp"
#include "reports/report.hpp"
#include "reports/report_data.hpp"

namespace r4::report {

std::string report_csv(const db::Store& store, db::Id run) {
  const ReportData d = load_report_data(store, run);
  using db::csv_field;
  using db::csv_num;
  std::string out =
      "run_uuid,kernel,dtype,shape,n,k,m,wv,sk,mb,npw,nt,status,median_us,ci_low_us,ci_high_us,"
      "n_samples,gbps,pct_of_ceiling,bf16_us,fp8_block_us,speedup_vs_bf16,speedup_vs_fp8,winner,"
      "band_limit\n";
  for (const auto& m : d.measurements) {
    const auto* bf = d.baseline(db::BaselineKind::bf16, m.n, m.k, m.m);
    const auto* fp = d.baseline(db::BaselineKind::fp8_block, m.n, m.k, m.m);
    auto ratio = [&](const db::BaselineRow* b) -> std::string {
      if (!b || !b->median_us || !m.median_us || m.status != db::MeasurementStatus::ok) return {};
      return fmt::format("{:.4f}", *b->median_us / *m.median_us);
    };
    const auto* w = d.winner_for(m);
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(d.run.uuid), csv_field(m.kernel), csv_field(m.dtype),
                    csv_field(store.shape_name(run, m.n, m.k)), m.n, m.k, m.m, m.config.wv,
                    m.config.sk, m.config.mb, m.config.npw, m.config.nt, db::to_string(m.status),
                    csv_num(m.median_us), csv_num(m.ci_low_us), csv_num(m.ci_high_us), m.n_samples,
                    csv_num(m.gbps), csv_num(m.pct_of_ceiling), bf ? csv_num(bf->median_us) : "",
                    fp ? csv_num(fp->median_us) : "", ratio(bf), ratio(fp), w ? 1 : 0,
                    w ? std::to_string(w->band_limit) : "");
  }
  return out;
}

}  // namespace r4::report
