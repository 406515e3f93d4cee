// A sweep spec (configs/*.toml): what to tune, on which shapes and bands, how to measure.
// Parsed with toml++; every error names the file, the key and what was expected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tuner/gpu/arch.hpp"

namespace r4::tune {

struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ShapeSpec {
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string name;  // optional, e.g. "qkv_proj"
};

// Per knob, the values to try; empty means the kernel family's default space for the arch.
// `gen` keeps only those kernel generations (0 mma_sync, 1 sm90a; in TOML numbers or names);
// `st` filters the sm90a generation's ring stages (ST) and leaves mma_sync configs, which have
// none, alone. WV..NT filter both generations.
// `arch`, where given, scopes the table: its filters apply only when the sweep compiles for one
// of these arches (by name; "sm_90" covers sm_90a too); elsewhere the
// family's default space stands. configs/dflash.toml uses it to leave the mma_sync generation out
// on Hopper only (docs/TUNER.md "Scoped spaces").
struct SpaceSpec {
  std::vector<int> wv, sk, mb, npw, nt, gen, st;
  std::vector<gpu::Arch> arch;

  // Whether the filters apply to a sweep for `a`.
  [[nodiscard]] bool applies_to(const gpu::Arch& a) const;
};

struct PoolSpec {
  double llc_factor = 4.0;     // pool bytes >= llc_factor x last-level cache
  std::int64_t llc_bytes = 0;  // override the device's report (AMD Infinity Cache), 0 = ask
  std::int64_t max_bytes = 32LL << 30;  // never allocate more than this for one shape's pool
  int screen_slices = 4;  // screening samples replay 1/slices of the pool (measure/pool.hpp)
};

struct StopSpec {
  double rel_ci = 0.01;        // stop once the 95% CI half-width of the median <= rel_ci x median
  int min_samples = 5;         // before an entry may stop as converged
  int race_after = 3;          // before a candidate may be raced out (2..min_samples)
  double screen_ratio = 1.25;  // first sample > this x the best first sample: out (0: off)
  double race_margin = 0.03;   // raced out only if CI low > (1 + this) x the best's CI high
  int max_samples = 40;        // cap per candidate per race
  double max_seconds = 3.0;    // cap per race (a (shape, M) pair), wall time of device work
  bool race = true;            // drop candidates whose CI lies wholly above the best's
  int finalists = 3;           // re-measured, interleaved, before a winner is declared
  int warmup_replays = 0;      // untimed slice replays per candidate before sampling
};

// A decode step ([step]): the spec's shapes in the order a model's layer runs them, timed as one
// chain of dependent launches after the races (DESIGN.md "Decode steps").
struct StepSpec {
  std::string name;                // [step] name; default: the spec's name
  std::vector<std::string> order;  // shape names, repeats allowed
  std::vector<std::size_t> chain;  // order resolved to indices into Spec::shapes
  std::vector<int> m;  // ascending, unique, each 1..64; default: every band's top M, 1 and 8
};

struct Spec {
  std::string name;
  std::string description;
  std::filesystem::path path;
  std::string text;                  // the file as read, stored with the run
  std::vector<std::string> kernels;  // stable kernel names, e.g. "gemm_w4a16_nt"
  std::vector<ShapeSpec> shapes;
  std::vector<int> band_limits;  // ascending, each in 1..64; measured at each band's top M
  std::vector<int> extra_m;      // measured too, reported but not used to pick winners
  std::map<std::string, SpaceSpec> space;  // per kernel
  std::vector<std::string> baselines;      // "bf16", "fp8_block"
  PoolSpec pool;
  StopSpec stop;
  std::string compile_arch;  // for --compile-only without a device; default "sm_90"
  std::optional<StepSpec> step;
  // TEST ONLY ([test] inject): extra candidates that misbehave, to exercise isolation:
  // "oob" writes out of bounds, "hang" never returns, "wrong" reads the wrong scale.
  std::vector<std::string> inject;
};

// Throws SpecError.
[[nodiscard]] Spec load_spec(const std::filesystem::path& path);
[[nodiscard]] Spec parse_spec(const std::string& text, const std::string& origin);

// The M values a spec measures: every band's top M plus the extras, ascending, unique.
[[nodiscard]] std::vector<int> measured_ms(const Spec& s);

}  // namespace r4::tune
