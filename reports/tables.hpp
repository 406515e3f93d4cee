// The tables a run's winners make, in the shape every emitter writes: per (kernel, dtype), per
// shape (N, K), bands in ascending M limit. Built once from the database so that the Python, C++
// and JSON writers cannot disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/store.hpp"

namespace r4::report {

struct Band {
  int m_limit = 0;
  int m_measured = 0;
  db::Config config;
  double median_us = 0;
  std::optional<double> speedup_vs_bf16;
  std::optional<double> speedup_vs_fp8;
  bool remeasured = false;
};

struct ShapeTable {
  std::int64_t n = 0, k = 0;
  std::string name;
  std::vector<Band> bands;  // ascending m_limit
};

struct KernelTable {
  std::string kernel;       // stable kernel name, e.g. "gemm_w4a16_nt"
  std::string dtype;        // "w4a16"
  std::string python_name;  // "_CFG", "_CFG_A8", or "_CFG_<KERNEL>_<DTYPE>"
  std::string cpp_name;     // "gemm_w4a16_nt_w4a16"
  std::vector<ShapeTable> shapes;
};

struct RunTables {
  db::RunRow run;
  std::optional<db::DeviceRow> device;
  std::string device_label;         // "NVIDIA H200 (sm_90, 132 SMs)" or "no device"
  std::string date;                 // the run's start date, "2026-11-29"
  std::vector<KernelTable> tables;  // w4a16 first, then w4a8, then others by name
  // The last M the w4a16 table serves before w4a8 takes over (the seeds' `m > _A8_M` test):
  // the largest band limit L such that at every band up to and including L, the w4a16 winners'
  // times summed over the shapes both tables have are <= the w4a8 winners'. 0 if w4a8 is
  // faster at the first band; the largest w4a16 band when there is no w4a8 table.
  int a8_m = 0;
};

// Throws db::InvalidRow (via Store::winners) when a winner fails validation, db::NotFound when
// the run has no winners at all.
[[nodiscard]] RunTables load_tables(const db::Store& store, db::Id run);
// The same from winners the caller already read (the report reads them with OnInvalid::flag and
// passes the valid ones).
[[nodiscard]] RunTables build_tables(const db::Store& store, db::Id run,
                                     const std::vector<db::WinnerRow>& winners);

// "3.74x .. 2.52x" over block-fp8 (lowest band .. highest band), or "4.60 .. 6.86 us".
[[nodiscard]] std::string speedup_range(const ShapeTable& s);

}  // namespace r4::report
