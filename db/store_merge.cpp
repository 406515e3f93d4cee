// Store: merging another database's runs in, and the whole-database CSV export.
#include <fstream>
#include <map>

#include <fmt/core.h>

#include "db/csv.hpp"
#include "db/store.hpp"

namespace r4::db {

MergeResult Store::merge(const std::string& other_path) {
  if (read_only()) throw Error("merge: the target database is open read-only");
  Store other = Store::open_read_only(other_path);
  MergeResult res;
  Transaction t(*conn_);
  for (const RunRow& r : other.list_runs()) {
    {
      auto s = conn_->prepare("SELECT 1 FROM runs WHERE uuid = ?1");
      s.bind(1, r.uuid);
      if (s.step()) {
        ++res.runs_skipped;
        continue;
      }
    }
    RunRow copy = r;
    copy.device_id.reset();
    if (auto d = other.run_device(r)) copy.device_id = upsert_device(*d);
    const Id run_id = begin_run(copy);  // keeps uuid, times, status and notes

    std::map<Id, Id> compile_ids;
    for (CompileRow c : other.compiles_for_run(r.id, true)) {
      const Id old = c.id;
      compile_ids[old] = insert_compile(c, run_id);  // an existing entry with the key wins
    }
    // The GPUs the run's rows name, with their device rows: provenance survives the move (a merge
    // of stores written by different hosts keeps which GPU of which host took each row).
    std::map<Id, Id> gpu_ids;
    auto map_gpu = [&](std::optional<Id> old) -> std::optional<Id> {
      if (!old) return std::nullopt;
      if (auto it = gpu_ids.find(*old); it != gpu_ids.end()) return it->second;
      auto g = other.gpu(*old);
      auto d = g ? other.device(g->device_id) : std::nullopt;
      if (!g || !d)
        throw Error(
            fmt::format("merge: '{}' run {} refers to missing GPU {}", other_path, r.id, *old));
      g->device_id = upsert_device(*d);
      return gpu_ids[*old] = upsert_gpu(*g);
    };
    for (RunGpuRow g : other.run_gpus(r.id)) {
      g.run_id = run_id;
      g.gpu_id = *map_gpu(g.gpu_id);
      record_run_gpu(g);
    }
    auto map_compile = [&](Id old) {
      auto it = compile_ids.find(old);
      if (it == compile_ids.end())
        throw Error(
            fmt::format("merge: '{}' run {} refers to missing compile {}", other_path, r.id, old));
      return it->second;
    };
    for (CheckRow c : other.checks(r.id)) {
      c.run_id = run_id;
      c.compile_id = map_compile(c.compile_id);
      c.gpu_id = map_gpu(c.gpu_id);
      insert_check(c);
    }
    std::map<Id, Id> measurement_ids;
    for (MeasurementRow m : other.measurements(r.id)) {
      const Id old = m.id;
      m.run_id = run_id;
      if (m.compile_id) m.compile_id = map_compile(*m.compile_id);
      m.gpu_id = map_gpu(m.gpu_id);
      const auto samples = other.samples(old);
      measurement_ids[old] = insert_measurement(m, samples);
    }
    for (BaselineRow b : other.baselines(r.id)) {
      const auto samples = other.baseline_samples(b.id);
      b.run_id = run_id;
      b.gpu_id = map_gpu(b.gpu_id);
      insert_baseline(b, samples);
    }
    for (WinnerRow w : other.winners(r.id, OnInvalid::flag)) {
      w.run_id = run_id;
      if (w.measurement_id) {
        auto it = measurement_ids.find(*w.measurement_id);
        w.measurement_id =
            it == measurement_ids.end() ? std::nullopt : std::optional<Id>(it->second);
      }
      insert_winner(w);
    }
    for (const auto& sn : other.shape_names(r.id)) set_shape_name(run_id, sn.n, sn.k, sn.name);
    for (FloorRow f : other.floors(r.id)) {
      const auto samples = other.floor_samples(f.id);
      f.run_id = run_id;
      f.gpu_id = map_gpu(f.gpu_id);
      insert_floor(f, samples);
    }
    for (StepRow st : other.steps(r.id)) {
      const auto samples = other.step_samples(st.id);
      st.run_id = run_id;
      st.gpu_id = map_gpu(st.gpu_id);
      insert_step(st, samples);
    }
    ++res.runs_imported;
  }
  t.commit();
  return res;
}

void Store::export_csv(const std::string& out_path) const {
  std::ofstream out(out_path, std::ios::binary);
  if (!out) throw Error(fmt::format("cannot write '{}'", out_path));
  out << "run_uuid,run_status,spec_name,git_commit,device,arch,multiprocessors,driver_version,"
         "runtime_version,compiler_version,kernel,dtype,n,k,m,wv,sk,mb,npw,nt,gen,st,status,"
         "median_us,ci_low_us,ci_high_us,n_samples,gbps,pct_of_ceiling,floor_us,x_floor,"
         "sm_clock_mhz,mem_clock_mhz,source_hash,options,compile_key,gpu_host,gpu_ordinal,"
         "gpu_pci_bus_id\n";
  // The read floor of the measurement's shape: same run, bytes = w4_weight_bytes(N, K). A file
  // from before schema v2 has no floors table, so its floor columns are empty.
  const std::string floor_join =
      has_v2_tables_ ? "LEFT JOIN floors f ON f.run_id = m.run_id AND f.kind = 'read' AND "
                       "f.n = m.n AND f.k = m.k AND f.bytes = m.n * m.k / 2 + m.n * m.k / 32 "
                     : "";
  const std::string floor_col = has_v2_tables_ ? "f.median_us" : "NULL";
  // The GPU that took it (schema v3): host, device index, PCI bus id; empty before v3.
  const std::string gpu_join = has_v4_columns_ ? "LEFT JOIN gpus g ON g.id = m.gpu_id " : "";
  const std::string gpu_cols =
      has_v4_columns_ ? "g.host, g.ordinal, g.pci_bus_id" : "NULL, NULL, NULL";
  auto s = conn_->prepare(fmt::format(
      "SELECT r.uuid, r.status, r.spec_name, r.git_commit, coalesce(d.name, ''), "
      "coalesce(d.arch, ''), d.multiprocessors, coalesce(d.driver_version, ''), "
      "coalesce(d.runtime_version, ''), coalesce(d.compiler_version, ''), m.kernel, m.dtype, m.n, "
      "m.k, m.m, m.wv, m.sk, m.mb, m.npw, m.nt, {}, m.status, m.median_us, m.ci_low_us, "
      "m.ci_high_us, m.n_samples, m.gbps, m.pct_of_ceiling, {}, m.sm_clock_mhz, m.mem_clock_mhz, "
      "coalesce(c.source_hash, ''), coalesce(c.options, ''), coalesce(c.cache_key, ''), {} "
      "FROM measurements m JOIN runs r ON r.id = m.run_id LEFT JOIN devices d ON d.id = "
      "r.device_id "
      "LEFT JOIN compiles c ON c.id = m.compile_id {}{}"
      "ORDER BY r.started_at, r.id, m.kernel, m.dtype, m.n, m.k, m.m, m.id",
      gen_st_cols("m."), floor_col, gpu_cols, floor_join, gpu_join));
  // Columns of the SELECT (x_floor, after floor_us, is computed): compile_key and the GPU's.
  constexpr int kMedian = 23, kFloor = 29, kColumns = 38;
  while (s.step()) {
    std::string line;
    for (int i = 0; i < kColumns; ++i) {
      if (i) line += ',';
      if (!s.is_null(i))
        // Text columns are quoted as needed; numbers print in SQLite's own text form.
        line += csv_field(s.text(i));
      if (i == kFloor) {
        // x_floor, right after floor_us: how many read floors the measurement takes.
        line += ',';
        if (!s.is_null(kFloor) && !s.is_null(kMedian))
          line += fmt::format("{:.4f}", s.f64(kMedian) / s.f64(kFloor));
      }
    }
    out << line << '\n';
  }
  out.flush();
  if (!out) throw Error(fmt::format("error writing '{}'", out_path));
}

}  // namespace r4::db
