#include "tuner/tune/row_batch.hpp"

#include <stdexcept>
#include <string>

namespace r4::tune {

using nlohmann::json;

void RowBatch::append(RowBatch&& o) {
  const std::size_t base = measurements.size();
  for (auto& c : o.checks) checks.push_back(std::move(c));
  for (auto& m : o.measurements) measurements.push_back(std::move(m));
  for (auto& b : o.baselines) baselines.push_back(std::move(b));
  for (auto& [w, i] : o.winners)
    winners.emplace_back(std::move(w), i ? std::optional<std::size_t>(*i + base) : std::nullopt);
  for (auto& f : o.floors) floors.push_back(std::move(f));
  for (auto& s : o.steps) steps.push_back(std::move(s));
  o = RowBatch{};
}

void stamp_gpu(RowBatch& b, std::optional<db::Id> gpu) {
  if (!gpu) return;
  auto set = [&](std::optional<db::Id>& g) {
    if (!g) g = gpu;
  };
  for (auto& c : b.checks) set(c.gpu_id);
  for (auto& m : b.measurements) set(m.row.gpu_id);
  for (auto& x : b.baselines) set(x.row.gpu_id);
  for (auto& f : b.floors) set(f.row.gpu_id);
  for (auto& s : b.steps) set(s.row.gpu_id);
}

std::vector<db::Id> write_batch(db::Store& store, const RowBatch& b) {
  db::Transaction tx(store.connection());
  for (const auto& c : b.checks) store.insert_check(c);
  std::vector<db::Id> mids;
  for (const auto& m : b.measurements) mids.push_back(store.insert_measurement(m.row, m.samples));
  for (const auto& x : b.baselines) store.insert_baseline(x.row, x.samples);
  for (const auto& [w, i] : b.winners) {
    db::WinnerRow row = w;
    row.measurement_id =
        i && *i < mids.size() ? std::optional<db::Id>(mids[*i]) : std::optional<db::Id>();
    store.insert_winner(row);
  }
  for (const auto& f : b.floors) store.insert_floor(f.row, f.samples);
  for (const auto& s : b.steps) store.insert_step(s.row, s.samples);
  tx.commit();
  return mids;
}

namespace {

// Optional fields are left out when empty.
template <class T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
template <class T>
void get(const json& j, const char* key, std::optional<T>& v) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
}

// Every field of the config, the generation and its stage count included: without them a
// remote rank's sm90a and ldg rows reached rank 0 as generation 0 (the 2-GPU `mpirun -n 2`
// scaling run of 2026-12-01 stored 80 of 224 winners with the 1-GPU run's config, against 176
// for `--devices all`; every mismatch a generation-0 tuple).
json config_to_json(const db::Config& c) {
  return json::array({c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st});
}
db::Config config_from(const json& j) {
  if (!j.is_array() || j.size() != 7)
    throw std::invalid_argument("a row batch's config must be [wv, sk, mb, npw, nt, gen, st]");
  return {j.at(0).get<int>(), j.at(1).get<int>(), j.at(2).get<int>(), j.at(3).get<int>(),
          j.at(4).get<int>(), j.at(5).get<int>(), j.at(6).get<int>()};
}

json check_json(const db::CheckRow& c) {
  json j = {{"run", c.run_id}, {"compile", c.compile_id},           {"n", c.n},          {"k", c.k},
            {"m", c.m},        {"status", db::to_string(c.status)}, {"detail", c.detail}};
  put(j, "gpu", c.gpu_id);
  put(j, "max_error", c.max_error);
  put(j, "tolerance", c.tolerance);
  return j;
}
db::CheckRow check_from(const json& j) {
  db::CheckRow c;
  c.run_id = j.at("run");
  c.compile_id = j.at("compile");
  c.n = j.at("n");
  c.k = j.at("k");
  c.m = j.at("m");
  c.status = db::parse_check_status(j.at("status").get<std::string>());
  c.detail = j.at("detail");
  get(j, "gpu", c.gpu_id);
  get(j, "max_error", c.max_error);
  get(j, "tolerance", c.tolerance);
  return c;
}

json measurement_json(const db::MeasurementRow& m) {
  json j = {{"run", m.run_id},
            {"kernel", m.kernel},
            {"dtype", m.dtype},
            {"n", m.n},
            {"k", m.k},
            {"m", m.m},
            {"config", config_to_json(m.config)},
            {"status", db::to_string(m.status)},
            {"n_samples", m.n_samples},
            {"detail", m.detail}};
  put(j, "compile", m.compile_id);
  put(j, "gpu", m.gpu_id);
  put(j, "median_us", m.median_us);
  put(j, "ci_low_us", m.ci_low_us);
  put(j, "ci_high_us", m.ci_high_us);
  put(j, "gbps", m.gbps);
  put(j, "pct_of_ceiling", m.pct_of_ceiling);
  put(j, "sm_clock_mhz", m.sm_clock_mhz);
  put(j, "mem_clock_mhz", m.mem_clock_mhz);
  return j;
}
db::MeasurementRow measurement_from(const json& j) {
  db::MeasurementRow m;
  m.run_id = j.at("run");
  m.kernel = j.at("kernel");
  m.dtype = j.at("dtype");
  m.n = j.at("n");
  m.k = j.at("k");
  m.m = j.at("m");
  m.config = config_from(j.at("config"));
  m.status = db::parse_measurement_status(j.at("status").get<std::string>());
  m.n_samples = j.at("n_samples");
  m.detail = j.at("detail");
  get(j, "compile", m.compile_id);
  get(j, "gpu", m.gpu_id);
  get(j, "median_us", m.median_us);
  get(j, "ci_low_us", m.ci_low_us);
  get(j, "ci_high_us", m.ci_high_us);
  get(j, "gbps", m.gbps);
  get(j, "pct_of_ceiling", m.pct_of_ceiling);
  get(j, "sm_clock_mhz", m.sm_clock_mhz);
  get(j, "mem_clock_mhz", m.mem_clock_mhz);
  return m;
}

json baseline_json(const db::BaselineRow& b) {
  json j = {{"run", b.run_id}, {"kind", db::to_string(b.kind)}, {"n", b.n},      {"k", b.k},
            {"m", b.m},        {"n_samples", b.n_samples},      {"algo", b.algo}};
  put(j, "gpu", b.gpu_id);
  put(j, "median_us", b.median_us);
  put(j, "ci_low_us", b.ci_low_us);
  put(j, "ci_high_us", b.ci_high_us);
  put(j, "gbps", b.gbps);
  return j;
}
db::BaselineRow baseline_from(const json& j) {
  db::BaselineRow b;
  b.run_id = j.at("run");
  b.kind = db::parse_baseline_kind(j.at("kind").get<std::string>());
  b.n = j.at("n");
  b.k = j.at("k");
  b.m = j.at("m");
  b.n_samples = j.at("n_samples");
  b.algo = j.at("algo");
  get(j, "gpu", b.gpu_id);
  get(j, "median_us", b.median_us);
  get(j, "ci_low_us", b.ci_low_us);
  get(j, "ci_high_us", b.ci_high_us);
  get(j, "gbps", b.gbps);
  return b;
}

json winner_json(const db::WinnerRow& w) {
  json j = {{"run", w.run_id},
            {"kernel", w.kernel},
            {"dtype", w.dtype},
            {"n", w.n},
            {"k", w.k},
            {"band_limit", w.band_limit},
            {"m_measured", w.m_measured},
            {"config", config_to_json(w.config)},
            {"median_us", w.median_us},
            {"remeasured", w.remeasured}};
  put(j, "vs_bf16", w.speedup_vs_bf16);
  put(j, "vs_fp8", w.speedup_vs_fp8);
  return j;
}
db::WinnerRow winner_from(const json& j) {
  db::WinnerRow w;
  w.run_id = j.at("run");
  w.kernel = j.at("kernel");
  w.dtype = j.at("dtype");
  w.n = j.at("n");
  w.k = j.at("k");
  w.band_limit = j.at("band_limit");
  w.m_measured = j.at("m_measured");
  w.config = config_from(j.at("config"));
  w.median_us = j.at("median_us");
  w.remeasured = j.at("remeasured");
  get(j, "vs_bf16", w.speedup_vs_bf16);
  get(j, "vs_fp8", w.speedup_vs_fp8);
  return w;
}

json floor_json(const db::FloorRow& f) {
  json j = {{"run", f.run_id},
            {"kind", db::to_string(f.kind)},
            {"n", f.n},
            {"k", f.k},
            {"bytes", f.bytes},
            {"median_us", f.median_us},
            {"n_samples", f.n_samples},
            {"detail", f.detail}};
  put(j, "gpu", f.gpu_id);
  put(j, "ci_low_us", f.ci_low_us);
  put(j, "ci_high_us", f.ci_high_us);
  put(j, "gbps", f.gbps);
  return j;
}
db::FloorRow floor_from(const json& j) {
  db::FloorRow f;
  f.run_id = j.at("run");
  f.kind = db::parse_floor_kind(j.at("kind").get<std::string>());
  f.n = j.at("n");
  f.k = j.at("k");
  f.bytes = j.at("bytes");
  f.median_us = j.at("median_us");
  f.n_samples = j.at("n_samples");
  f.detail = j.at("detail");
  get(j, "gpu", f.gpu_id);
  get(j, "ci_low_us", f.ci_low_us);
  get(j, "ci_high_us", f.ci_high_us);
  get(j, "gbps", f.gbps);
  return f;
}

json step_json(const db::StepRow& s) {
  json j = {{"run", s.run_id},
            {"name", s.name},
            {"m", s.m},
            {"path", db::to_string(s.path)},
            {"status", db::to_string(s.status)},
            {"n_samples", s.n_samples},
            {"launches", s.launches},
            {"detail", s.detail}};
  put(j, "gpu", s.gpu_id);
  put(j, "median_us", s.median_us);
  put(j, "ci_low_us", s.ci_low_us);
  put(j, "ci_high_us", s.ci_high_us);
  return j;
}
db::StepRow step_from(const json& j) {
  db::StepRow s;
  s.run_id = j.at("run");
  s.name = j.at("name");
  s.m = j.at("m");
  s.path = db::parse_step_path(j.at("path").get<std::string>());
  s.status = db::parse_step_status(j.at("status").get<std::string>());
  s.n_samples = j.at("n_samples");
  s.launches = j.at("launches");
  s.detail = j.at("detail");
  get(j, "gpu", s.gpu_id);
  get(j, "median_us", s.median_us);
  get(j, "ci_low_us", s.ci_low_us);
  get(j, "ci_high_us", s.ci_high_us);
  return s;
}

template <class Row, class F>
json sampled_json(const Sampled<Row>& s, F row_json) {
  return {{"row", row_json(s.row)}, {"samples", s.samples}};
}
template <class Row, class F>
Sampled<Row> sampled_from(const json& j, F row_from) {
  return {row_from(j.at("row")), j.at("samples").get<std::vector<double>>()};
}

}  // namespace

json to_json(const RowBatch& b) {
  json j = json::object();
  auto list = [&](const char* key, const auto& rows, auto one) {
    if (rows.empty()) return;
    json a = json::array();
    for (const auto& r : rows) a.push_back(one(r));
    j[key] = std::move(a);
  };
  list("checks", b.checks, check_json);
  list("measurements", b.measurements,
       [](const auto& s) { return sampled_json(s, measurement_json); });
  list("baselines", b.baselines, [](const auto& s) { return sampled_json(s, baseline_json); });
  list("winners", b.winners, [](const auto& w) {
    json o = {{"row", winner_json(w.first)}};
    put(o, "measurement", w.second);
    return o;
  });
  list("floors", b.floors, [](const auto& s) { return sampled_json(s, floor_json); });
  list("steps", b.steps, [](const auto& s) { return sampled_json(s, step_json); });
  return j;
}

RowBatch batch_from_json(const json& j) {
  RowBatch b;
  auto each = [&](const char* key, auto one) {
    if (auto it = j.find(key); it != j.end())
      for (const auto& r : *it) one(r);
  };
  each("checks", [&](const json& r) { b.checks.push_back(check_from(r)); });
  each("measurements", [&](const json& r) {
    b.measurements.push_back(sampled_from<db::MeasurementRow>(r, measurement_from));
  });
  each("baselines", [&](const json& r) {
    b.baselines.push_back(sampled_from<db::BaselineRow>(r, baseline_from));
  });
  each("winners", [&](const json& r) {
    std::optional<std::size_t> i;
    get(r, "measurement", i);
    b.winners.emplace_back(winner_from(r.at("row")), i);
  });
  each("floors",
       [&](const json& r) { b.floors.push_back(sampled_from<db::FloorRow>(r, floor_from)); });
  each("steps", [&](const json& r) { b.steps.push_back(sampled_from<db::StepRow>(r, step_from)); });
  return b;
}

}  // namespace r4::tune
