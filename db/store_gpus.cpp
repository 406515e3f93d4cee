// Store: the physical GPUs (schema v4, `gpus` and `run_gpus`): which GPU of which host took each
// row, and what each GPU did in a run (docs/DB.md "GPUs").
#include <cmath>

#include <fmt/core.h>

#include "db/store.hpp"

namespace r4::db {

Id Store::upsert_gpu(const GpuRow& g) {
  if (g.host.empty() || g.ordinal < 0)
    throw InvalidRow(
        fmt::format("refusing to store a GPU without a host or with ordinal {}", g.ordinal));
  Transaction t(*conn_);
  if (!device(g.device_id))
    throw InvalidRow(fmt::format("refusing to store a GPU of device {}: no such device in '{}'",
                                 g.device_id, path()));
  auto find = conn_->prepare(
      "SELECT id FROM gpus WHERE device_id = ?1 AND host = ?2 AND ordinal = ?3 AND "
      "pci_bus_id = ?4");
  find.bind_all(g.device_id, g.host, g.ordinal, g.pci_bus_id);
  if (find.step()) return find.i64(0);  // rolls back the (empty) transaction
  conn_->prepare("INSERT INTO gpus(device_id, host, ordinal, pci_bus_id) VALUES (?1, ?2, ?3, ?4)")
      .bind_all(g.device_id, g.host, g.ordinal, g.pci_bus_id)
      .run();
  const Id id = conn_->last_insert_id();
  t.commit();
  return id;
}

void Store::record_run_gpu(const RunGpuRow& r) {
  if (r.rank < 0 || r.races < 0 || !std::isfinite(r.busy_seconds) || r.busy_seconds < 0 ||
      !std::isfinite(r.idle_seconds) || r.idle_seconds < 0 ||
      (r.ceiling_gbps && !(std::isfinite(*r.ceiling_gbps) && *r.ceiling_gbps > 0)))
    throw InvalidRow(fmt::format(
        "refusing to record GPU {} of run {}: rank {}, races {}, busy {} s, idle {} s, ceiling {}",
        r.gpu_id, r.run_id, r.rank, r.races, r.busy_seconds, r.idle_seconds,
        r.ceiling_gbps.value_or(0)));
  Transaction t(*conn_);
  require_run(r.run_id, "a run's GPU");
  conn_
      ->prepare(
          "INSERT INTO run_gpus(run_id, gpu_id, rank, ceiling_gbps, races, busy_seconds, "
          "idle_seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(run_id, gpu_id) DO "
          "UPDATE SET rank = excluded.rank, "
          "ceiling_gbps = coalesce(ceiling_gbps, excluded.ceiling_gbps), "
          "races = races + excluded.races, busy_seconds = busy_seconds + excluded.busy_seconds, "
          "idle_seconds = idle_seconds + excluded.idle_seconds")
      .bind_all(r.run_id, r.gpu_id, r.rank, r.ceiling_gbps, r.races, r.busy_seconds, r.idle_seconds)
      .run();
  t.commit();
}

void Store::set_run_ranks(Id run_id, int ranks) {
  if (ranks < 1)
    throw InvalidRow(fmt::format("refusing to record {} ranks for run {}", ranks, run_id));
  Transaction t(*conn_);
  conn_->prepare("UPDATE runs SET ranks = ?2 WHERE id = ?1").bind_all(run_id, ranks).run();
  if (conn_->changes() == 0) throw NotFound(fmt::format("no run {}", run_id));
  t.commit();
}

std::optional<GpuRow> Store::gpu(Id id) const {
  if (!has_v4_columns_) return std::nullopt;
  auto s =
      conn_->prepare("SELECT id, device_id, host, ordinal, pci_bus_id FROM gpus WHERE id = ?1");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return GpuRow{s.i64(0), s.i64(1), s.text(2), s.i32(3), s.text(4)};
}

std::vector<RunGpuRow> Store::run_gpus(Id run_id) const {
  if (!has_v4_columns_) return {};
  auto s = conn_->prepare(
      "SELECT r.run_id, r.gpu_id, r.rank, r.ceiling_gbps, r.races, r.busy_seconds, "
      "r.idle_seconds, g.device_id, g.host, g.ordinal, g.pci_bus_id FROM run_gpus r "
      "JOIN gpus g ON g.id = r.gpu_id WHERE r.run_id = ?1 ORDER BY r.gpu_id");
  s.bind(1, run_id);
  std::vector<RunGpuRow> out;
  while (s.step()) {
    RunGpuRow r;
    r.run_id = s.i64(0);
    r.gpu_id = s.i64(1);
    r.rank = s.i32(2);
    r.ceiling_gbps = s.opt_f64(3);
    r.races = s.i32(4);
    r.busy_seconds = s.f64(5);
    r.idle_seconds = s.f64(6);
    r.gpu = {r.gpu_id, s.i64(7), s.text(8), s.i32(9), s.text(10)};
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace r4::db
