#include <fmt/core.h>

#include "db/csv.hpp"
#include "reports/report.hpp"
#include "reports/report_data.hpp"
#include "reports/step_view.hpp"

namespace r4::report {

namespace {

std::string ratio(std::optional<double> v) {
  return v ? fmt::format("{:.4f}", *v) : std::string();
}

}  // namespace

std::string report_csv(const db::Store& store, db::Id run) {
  const ReportData d = load_report_data(store, run);
  using db::csv_field;
  using db::csv_num;
  std::string out =
      "run_uuid,kernel,dtype,shape,n,k,m,wv,sk,mb,npw,nt,gen,st,status,median_us,ci_low_us,"
      "ci_high_us,"
      "n_samples,gbps,pct_of_ceiling,floor_us,x_floor,bf16_us,fp8_block_us,speedup_vs_bf16,"
      "speedup_vs_fp8,winner,band_limit\n";
  for (const auto& m : d.measurements) {
    const auto* bf = d.baseline(db::BaselineKind::bf16, m.n, m.k, m.m);
    const auto* fp = d.baseline(db::BaselineKind::fp8_block, m.n, m.k, m.m);
    const bool ok = m.status == db::MeasurementStatus::ok;
    auto over = [&](const db::BaselineRow* b) -> std::optional<double> {
      if (!b || !b->median_us || !m.median_us || !ok) return std::nullopt;
      return *b->median_us / *m.median_us;
    };
    const auto* w = d.winner_for(m);
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        csv_field(d.run.uuid), csv_field(m.kernel), csv_field(m.dtype),
        csv_field(d.shape_name(m.n, m.k)), m.n, m.k, m.m, m.config.wv, m.config.sk, m.config.mb,
        m.config.npw, m.config.nt, db::generation_name(m.config.gen), m.config.st,
        db::to_string(m.status), csv_num(m.median_us), csv_num(m.ci_low_us), csv_num(m.ci_high_us),
        m.n_samples, csv_num(m.gbps), csv_num(m.pct_of_ceiling), csv_num(d.floor_us(m.n, m.k)),
        ratio(d.x_floor(m.median_us, m.n, m.k)), bf ? csv_num(bf->median_us) : "",
        fp ? csv_num(fp->median_us) : "", ratio(over(bf)), ratio(over(fp)), w ? 1 : 0,
        w ? std::to_string(w->band_limit) : "");
  }
  return out;
}

std::string report_steps_csv(const db::Store& store, db::Id run) {
  const ReportData d = load_report_data(store, run);
  using db::csv_field;
  using db::csv_num;
  std::string out =
      "run_uuid,step,m,path,status,median_us,ci_low_us,ci_high_us,n_samples,launches,"
      "speedup_vs_bf16,speedup_vs_fp8,floor_sum_us,x_floor_sum,error\n";
  for (const auto& l : step_table(d).lines) {
    const auto& r = l.row;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(d.run.uuid),
                       csv_field(r.name), r.m, db::to_string(r.path), db::to_string(r.status),
                       csv_num(r.median_us), csv_num(r.ci_low_us), csv_num(r.ci_high_us),
                       r.n_samples, r.launches, ratio(l.speedup_vs_bf16), ratio(l.speedup_vs_fp8),
                       csv_num(l.floor_sum_us), ratio(l.x_floor_sum), csv_field(l.error));
  }
  return out;
}

}  // namespace r4::report
