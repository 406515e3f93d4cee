// Plain rows as the Store writes and reads them. Enums are stored as their lower-case names.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace r4::db {

using Id = std::int64_t;

// A kernel config (DESIGN.md "Config tuple", kernels/config.hpp). Generation 0, the mma.sync
// generation, has the seeds' tuple (WV, SK, MB, NPW, NT) and st = 0; generation 1, the sm90a
// generation, has (WV, SK, MB, NPW, NT, ST), ST its shared-memory ring stages; generation 2, the
// ldg generation, the same six with ST its 64-K blocks per register batch. The database
// stores the generation by name (generation_name: "mma_sync", "sm90a", "ldg"), next to the stable kernel
// name, so a renumbering never changes what a row means (STYLE.md rule 6).
struct Config {
  int wv = 1;
  int sk = 1;
  int mb = 1;
  int npw = 1;
  int nt = 0;
  int gen = 0;  // 0: mma_sync, 1: sm90a, 2: ldg (kernels::kGenMmaSync, kGenSm90a, kGenLdg)
  int st = 0;   // sm90a ring stages, ldg batch blocks; 0 in generation 0
  friend auto operator<=>(const Config&, const Config&) = default;
};

// The generations the database knows, numbered as kernels/config.hpp numbers them (the db
// library does not link the kernels; tests/db/generation_test.cpp holds the two equal).
inline constexpr int kGenMmaSync = 0;
inline constexpr int kGenSm90a = 1;
inline constexpr int kGenLdg = 2;
// "mma_sync", "sm90a", "ldg"; "?" for any other number.
[[nodiscard]] std::string_view generation_name(int gen);
// The inverse; none for an unknown name.
[[nodiscard]] std::optional<int> parse_generation(std::string_view name);
// kernels::to_string's text: "(WV, SK, MB, NPW, NT)" for generation 0 (the seeds' tuple),
// "sm90a(WV, SK, MB, NPW, NT, ST)" for generation 1 (any other: "gen<G>(..., ST)").
[[nodiscard]] std::string to_string(const Config& c);
// The knobs alone, in the generation's order: "(WV, SK, MB, NPW, NT)" for mma_sync,
// "(WV, SK, MB, NPW, NT, ST)" for any other generation (a table with a generation column).
[[nodiscard]] std::string knob_tuple(const Config& c);

enum class RunStatus { running, complete, partial, failed };
enum class CompileStatus { ok, compile_error, spills, over_resources };
enum class CheckStatus { pass, wrong_result, fault, timeout, not_run };
enum class MeasurementStatus { ok, failed, raced_out };
enum class BaselineKind { bf16, fp8_block, streaming_ceiling };
// Schema v2: the physical limits a run measures, and its decode steps (docs/DB.md).
enum class FloorKind { launch, read };
// How a step's chain was launched: the tuned 4-bit winners in plain stream order or with
// programmatic dependent launch, the vendor baselines' chains, and the pure weight reads.
enum class StepPath { w4, w4_pdl, bf16, fp8_block, read_floor, read_floor_pdl };
enum class StepStatus { ok, failed };

[[nodiscard]] std::string_view to_string(RunStatus s);
[[nodiscard]] std::string_view to_string(CompileStatus s);
[[nodiscard]] std::string_view to_string(CheckStatus s);
[[nodiscard]] std::string_view to_string(MeasurementStatus s);
[[nodiscard]] std::string_view to_string(BaselineKind s);
[[nodiscard]] std::string_view to_string(FloorKind s);
[[nodiscard]] std::string_view to_string(StepPath s);
[[nodiscard]] std::string_view to_string(StepStatus s);
// Throw r4::db::Error naming the bad value.
[[nodiscard]] RunStatus parse_run_status(std::string_view s);
[[nodiscard]] CompileStatus parse_compile_status(std::string_view s);
[[nodiscard]] CheckStatus parse_check_status(std::string_view s);
[[nodiscard]] MeasurementStatus parse_measurement_status(std::string_view s);
[[nodiscard]] BaselineKind parse_baseline_kind(std::string_view s);
[[nodiscard]] FloorKind parse_floor_kind(std::string_view s);
[[nodiscard]] StepPath parse_step_path(std::string_view s);
[[nodiscard]] StepStatus parse_step_status(std::string_view s);
// Every StepPath, in the order reports list them.
inline constexpr std::array<StepPath, 6> kStepPaths = {
    StepPath::w4,        StepPath::w4_pdl,     StepPath::bf16,
    StepPath::fp8_block, StepPath::read_floor, StepPath::read_floor_pdl};

// Bytes a 4-bit weight of (N, K) streams per launch: the int4 weight (N*K/2) plus one scale dword
// per 16 rows and 128-K group (N*K/32). The same formula as kernels::weight_bytes, which the db
// library cannot link (tests/db/weight_bytes_test.cpp holds the two equal). A measurement's read
// floor is the run's read floor with these bytes.
[[nodiscard]] constexpr std::int64_t w4_weight_bytes(std::int64_t n, std::int64_t k) {
  return n * k / 2 + n * k / 32;
}

struct DeviceRow {
  Id id = 0;           // set by the store
  std::string name;    // "NVIDIA H200"
  std::string vendor;  // "nvidia" | "amd"
  std::string arch;    // "sm_90", "gfx1201"
  int multiprocessors = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t llc_bytes = 0;
  std::int64_t memory_bytes = 0;
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  std::string pci_bus_id;  // not part of the identity
  std::string driver_version;
  std::string runtime_version;
  std::string compiler_version;  // NVRTC / hipRTC version the kernels are compiled with
  std::string info_json = "{}";  // the backend's full report; not part of the identity
};

struct RunRow {
  Id id = 0;         // set by the store
  std::string uuid;  // empty: begin_run generates a random (v4) one
  std::string spec_name;
  std::string spec_text;
  std::string git_commit;
  std::string r4tune_version;
  std::string host;
  std::optional<Id> device_id;
  std::string started_at;   // ISO 8601 UTC; empty: begin_run uses now
  std::string finished_at;  // empty while running
  RunStatus status = RunStatus::running;
  std::string notes;
  int ranks = 1;  // schema v3: the processes (MPI ranks) of the invocation that last drove it
};

struct CompileRow {
  Id id = 0;
  std::string cache_key;  // compile_key(source_hash, arch, options, compiler_version)
  std::string kernel;     // stable kernel name, e.g. "gemm_w4a16_nt"
  Config config;
  std::string arch;
  std::string source_hash;
  std::string options;  // the exact options, one per line
  std::string compiler_version;
  std::optional<int> registers;
  int spill_bytes = 0;
  int stack_bytes = 0;
  int shared_bytes = 0;
  double compile_seconds = 0;
  CompileStatus status = CompileStatus::ok;
  std::string log;
  std::vector<std::byte> binary;
};

struct CheckRow {
  Id id = 0;
  Id run_id = 0;
  Id compile_id = 0;
  std::optional<Id> gpu_id;  // schema v3: the physical GPU that took it (`gpus`); none before
  std::int64_t n = 0, k = 0;
  int m = 0;
  CheckStatus status = CheckStatus::not_run;
  std::optional<double> max_error;
  std::optional<double> tolerance;
  std::string detail;
};

struct MeasurementRow {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> compile_id;
  std::optional<Id> gpu_id;  // schema v3: the physical GPU that took it (`gpus`); none before
  std::string kernel;
  std::string dtype;  // "w4a16" | "w4a8"
  std::int64_t n = 0, k = 0;
  int m = 0;
  Config config;
  MeasurementStatus status = MeasurementStatus::ok;
  std::optional<double> median_us, ci_low_us, ci_high_us;  // 95% CI of the median
  int n_samples = 0;  // insert_measurement sets it from the samples when any are given
  std::optional<double> gbps;
  std::optional<double> pct_of_ceiling;  // 100 * gbps / the run's streaming ceiling
  std::optional<int> sm_clock_mhz, mem_clock_mhz;
  std::string detail;
};

struct BaselineRow {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> gpu_id;  // schema v3: the physical GPU that took it (`gpus`); none before
  BaselineKind kind = BaselineKind::bf16;
  std::int64_t n = 0, k = 0;  // 0 for streaming_ceiling
  int m = 0;
  std::optional<double> median_us, ci_low_us, ci_high_us;
  int n_samples = 0;
  std::optional<double> gbps;
  std::string algo;  // e.g. "cublasLt algo 23 tile 64x128 splitK 4"
};

struct WinnerRow {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> measurement_id;
  std::string kernel;
  std::string dtype;
  std::int64_t n = 0, k = 0;
  int band_limit = 0;  // the band's M limit (16, 32, ...)
  int m_measured = 0;  // the M it was measured at (the band's top M)
  Config config;
  double median_us = 0;
  std::optional<double> speedup_vs_bf16;
  std::optional<double> speedup_vs_fp8;
  bool remeasured = false;
  // Set on read when the row fails validation and OnInvalid::flag was asked for; empty if valid.
  std::string problem;
};

// A physical limit measured in the run (schema v2). `launch`: an empty kernel, graph-replayed
// (n = k = bytes = 0). `read`: a kernel that streams exactly `bytes` once with wide loads, launch
// and tail included, best of a few grids, one launch per pool copy; for a w4 shape bytes =
// w4_weight_bytes(n, k).
struct FloorRow {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> gpu_id;  // schema v3: the physical GPU that took it (`gpus`); none before
  FloorKind kind = FloorKind::read;
  std::int64_t n = 0, k = 0;                    // 0 for launch
  std::int64_t bytes = 0;                       // streamed per launch; 0 for launch
  double median_us = 0;                         // > 0
  std::optional<double> ci_low_us, ci_high_us;  // 95% CI of the median
  int n_samples = 0;           // insert_floor sets it from the samples when any are given
  std::optional<double> gbps;  // bytes / median; none for launch
  std::string detail;          // e.g. the chosen grid and block, pool copies
};

// One decode step timed as a whole (schema v2): the spec's [step] chain of shapes at one M, on
// one path. `detail` is the JSON of db/step_detail.hpp (the chain's shapes, kernels and configs;
// for a failed step the reason).
struct StepRow {
  Id id = 0;
  Id run_id = 0;
  std::optional<Id> gpu_id;  // schema v3: the physical GPU that took it (`gpus`); none before
  std::string name;          // the step's name ([step] name, default the spec's name)
  int m = 0;                 // 1..64
  StepPath path = StepPath::w4;
  StepStatus status = StepStatus::ok;
  std::optional<double> median_us;  // per step; none when failed, else > 0
  std::optional<double> ci_low_us, ci_high_us;
  int n_samples = 0;  // insert_step sets it from the samples when any are given
  int launches = 0;   // kernel launches per step (w4a8 adds its quant_act launches)
  std::string detail;
};

// One physical GPU (schema v3): a device model (`devices`) at an index on a host. Identity is all
// four fields, so the same card seen again is the same row.
struct GpuRow {
  Id id = 0;  // set by the store
  Id device_id = 0;
  std::string host;
  int ordinal = 0;  // the device index the worker opened there
  std::string pci_bus_id;
};

// A GPU a run timed on (schema v3), as Store::record_run_gpu adds it up over the invocations that
// drove the run; `gpu` is filled on read.
struct RunGpuRow {
  Id run_id = 0;
  Id gpu_id = 0;
  int rank = 0;                        // the MPI rank that drove it last (0 without MPI)
  std::optional<double> ceiling_gbps;  // its streaming-read ceiling, the first one measured
  int races = 0;                       // races it took
  double busy_seconds = 0;             // setting shapes up and racing
  double idle_seconds = 0;             // waiting while other GPUs still raced
  GpuRow gpu;
};

struct ShapeNameRow {
  Id run_id = 0;
  std::int64_t n = 0, k = 0;
  std::string name;
};

// What a validator sees: the config with everything an arch-dependent is_valid needs.
struct KernelConfigRow {
  std::string kernel;
  std::string dtype;
  std::string arch;  // the run's device arch, "" if the run has no device
  std::int64_t n = 0, k = 0;
  int m = 0;
  Config config;
};

struct RunCounts {
  std::int64_t measurements = 0, measurements_ok = 0, samples = 0, checks = 0, checks_failed = 0,
               baselines = 0, winners = 0, compiles = 0, floors = 0, steps = 0;
};

}  // namespace r4::db
