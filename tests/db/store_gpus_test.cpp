// Schema v3's GPUs (db/store_gpus.cpp): a physical GPU is one row however often it is seen; a
// run's per-GPU row adds up over invocations; every measured row keeps its GPU through a read,
// an older file reads with none, and `db merge` of stores written on different hosts (as MPI
// ranks or separate machines would) dedupes the compile cache and keeps each row's GPU and host.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "db/store.hpp"
#include "tests/fixtures/synthetic_fixture.hpp"
#include "tests/fixtures/temp_dir.hpp"

namespace r4::db {
namespace {

using testing::TempDir;

DeviceRow h200() {
  DeviceRow d;
  d.name = "NVIDIA H200";
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.multiprocessors = 132;
  d.driver_version = "13.0";
  d.runtime_version = "NVRTC 13.0";
  d.compiler_version = "NVRTC 13.0";
  return d;
}

CompileRow shared_compile() {
  CompileRow c;
  c.cache_key = compile_key("src", "sm_90", "-DR4_WV=4", "NVRTC 13.0");
  c.kernel = "gemm_w4a16_nt";
  c.config = {4, 1, 1, 1, 1};
  c.arch = "sm_90";
  c.source_hash = "src";
  c.binary = {std::byte{1}, std::byte{2}};
  return c;
}

// A store as one host (rank) writes it: its run on `gpus` GPUs of `host`, each GPU taking the
// race at one M, all with the one shared compile.
void write_host(const std::string& path, const std::string& host, const std::string& uuid,
                int gpus) {
  auto s = Store::open(path);
  const Id dev = s.upsert_device(h200());
  RunRow r = testing::run_row("scale", dev);
  r.uuid = uuid;
  r.host = host;
  r.ranks = 2;
  const Id run = s.begin_run(r);
  const Id compile = s.insert_compile(shared_compile(), run);
  for (int g = 0; g < gpus; ++g) {
    const Id gpu = s.upsert_gpu({0, dev, host, g, "0000:0" + std::to_string(g + 1) + ":00.0"});
    RunGpuRow rg;
    rg.run_id = run;
    rg.gpu_id = gpu;
    rg.rank = host == "host-a" ? 0 : 1;
    rg.ceiling_gbps = 4000.0 + g;
    rg.races = 1;
    rg.busy_seconds = 2.0;
    rg.idle_seconds = 0.5;
    s.record_run_gpu(rg);
    CheckRow c;
    c.run_id = run;
    c.compile_id = compile;
    c.gpu_id = gpu;
    c.n = 3072;
    c.k = 5120;
    c.m = 8 * (g + 1);
    c.status = CheckStatus::pass;
    s.insert_check(c);
    MeasurementRow m;
    m.run_id = run;
    m.compile_id = compile;
    m.gpu_id = gpu;
    m.kernel = "gemm_w4a16_nt";
    m.dtype = "w4a16";
    m.n = 3072;
    m.k = 5120;
    m.m = 8 * (g + 1);
    m.config = {4, 1, 1, 1, 1};
    m.median_us = 10.0 + g;
    s.insert_measurement(m, std::vector<double>{10.0 + g, 10.1 + g});
    BaselineRow b;
    b.run_id = run;
    b.gpu_id = gpu;
    b.kind = BaselineKind::bf16;
    b.n = 3072;
    b.k = 5120;
    b.m = 8 * (g + 1);
    b.median_us = 30.0;
    s.insert_baseline(b, std::vector<double>{30.0});
  }
  s.finish_run(run);
}

TEST(StoreGpus, OneRowPerGpuAndRunRowsAddUp) {
  TempDir dir;
  auto s = Store::open(dir.file("g.db"));
  const Id dev = s.upsert_device(h200());
  const Id a = s.upsert_gpu({0, dev, "node1", 0, "0000:01:00.0"});
  EXPECT_EQ(s.upsert_gpu({0, dev, "node1", 0, "0000:01:00.0"}), a);
  EXPECT_NE(s.upsert_gpu({0, dev, "node1", 1, "0000:02:00.0"}), a);
  EXPECT_NE(s.upsert_gpu({0, dev, "node2", 0, "0000:01:00.0"}), a);
  EXPECT_THROW(s.upsert_gpu({0, dev, "", 0, ""}), InvalidRow);
  EXPECT_THROW(s.upsert_gpu({0, dev + 99, "node1", 0, ""}), InvalidRow);
  const auto g = s.gpu(a);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->host, "node1");
  EXPECT_EQ(g->pci_bus_id, "0000:01:00.0");

  const Id run = s.begin_run(testing::run_row("r", dev));
  EXPECT_EQ(s.run(run).ranks, 1);
  RunGpuRow rg;
  rg.run_id = run;
  rg.gpu_id = a;
  rg.rank = 0;
  rg.ceiling_gbps = 4200;
  s.record_run_gpu(rg);    // at open: the ceiling
  rg.ceiling_gbps = 3900;  // a --resume measures again: the first is kept
  rg.rank = 3;
  rg.races = 5;
  rg.busy_seconds = 10;
  rg.idle_seconds = 1;
  s.record_run_gpu(rg);
  rg.ceiling_gbps.reset();
  rg.races = 2;
  rg.busy_seconds = 4;
  rg.idle_seconds = 0.5;
  s.record_run_gpu(rg);
  const auto rows = s.run_gpus(run);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].rank, 3);
  EXPECT_EQ(*rows[0].ceiling_gbps, 4200);
  EXPECT_EQ(rows[0].races, 7);
  EXPECT_DOUBLE_EQ(rows[0].busy_seconds, 14);
  EXPECT_DOUBLE_EQ(rows[0].idle_seconds, 1.5);
  EXPECT_EQ(rows[0].gpu.host, "node1");
  rg.busy_seconds = -1;
  EXPECT_THROW(s.record_run_gpu(rg), InvalidRow);
  s.set_run_ranks(run, 4);
  EXPECT_EQ(s.run(run).ranks, 4);
}

TEST(StoreGpus, MergeOfHostsDedupesCompilesAndKeepsEveryRowsGpu) {
  TempDir dir;
  write_host(dir.file("a.db"), "host-a", "aaaa0000-0000-4000-8000-000000000001", 2);
  write_host(dir.file("b.db"), "host-b", "bbbb0000-0000-4000-8000-000000000002", 3);
  auto all = Store::open(dir.file("all.db"));
  EXPECT_EQ(all.merge(dir.file("a.db")).runs_imported, 1);
  EXPECT_EQ(all.merge(dir.file("b.db")).runs_imported, 1);
  EXPECT_EQ(all.merge(dir.file("b.db")).runs_skipped, 1);
  // One compile (same cache key from both hosts), one device model, five physical GPUs.
  EXPECT_EQ(all.connection().query_text("SELECT count(*) FROM compiles"), "1");
  EXPECT_EQ(all.connection().query_text("SELECT count(*) FROM devices"), "1");
  EXPECT_EQ(all.connection().query_text("SELECT count(*) FROM gpus"), "5");
  for (const auto& [uuid, host, n] :
       {std::tuple{"aaaa", "host-a", 2}, std::tuple{"bbbb", "host-b", 3}}) {
    SCOPED_TRACE(host);
    const auto run = all.resolve_run(uuid);
    EXPECT_EQ(run.ranks, 2);
    const auto gpus = all.run_gpus(run.id);
    ASSERT_EQ(gpus.size(), static_cast<std::size_t>(n));
    std::map<Id, int> ordinal;
    for (const auto& g : gpus) {
      EXPECT_EQ(g.gpu.host, host);
      EXPECT_EQ(g.races, 1);
      EXPECT_EQ(*g.ceiling_gbps, 4000.0 + g.gpu.ordinal);
      ordinal[g.gpu_id] = g.gpu.ordinal;
    }
    // Each row still names the GPU that took it: GPU g raced M = 8 (g + 1) at 10 + g us.
    const auto ms = all.measurements(run.id);
    ASSERT_EQ(ms.size(), static_cast<std::size_t>(n));
    for (const auto& m : ms) {
      ASSERT_TRUE(m.gpu_id);
      const int g = ordinal.at(*m.gpu_id);
      EXPECT_EQ(m.m, 8 * (g + 1));
      EXPECT_DOUBLE_EQ(*m.median_us, 10.0 + g);
      EXPECT_EQ(all.samples(m.id).size(), 2u);
    }
    for (const auto& c : all.checks(run.id)) EXPECT_EQ(c.m, 8 * (ordinal.at(*c.gpu_id) + 1));
    for (const auto& b : all.baselines(run.id)) EXPECT_EQ(b.m, 8 * (ordinal.at(*b.gpu_id) + 1));
  }
  EXPECT_EQ(all.integrity_check(), "ok");
  // The whole-database CSV names each measurement's host and GPU.
  all.export_csv(dir.file("all.csv"));
  const std::string csv = testing::read_file(dir.file("all.csv"));
  EXPECT_NE(csv.find(",gpu_host,gpu_ordinal,gpu_pci_bus_id\n"), std::string::npos);
  EXPECT_NE(csv.find(",host-b,2,0000:03:00.0\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace r4::db
