#include "db/rows.hpp"

#include <array>
#include <utility>

#include <fmt/core.h>

#include "db/sqlite.hpp"

namespace r4::db {

namespace {

template <class E, std::size_t N>
std::string_view name_of(E v, const std::array<std::pair<E, std::string_view>, N>& names) {
  for (const auto& [e, s] : names)
    if (e == v) return s;
  return "?";
}

template <class E, std::size_t N>
E parse(std::string_view s, const std::array<std::pair<E, std::string_view>, N>& names,
        const char* what) {
  for (const auto& [e, n] : names)
    if (n == s) return e;
  throw Error(fmt::format("unknown {} '{}' in the database", what, s));
}

constexpr std::array<std::pair<RunStatus, std::string_view>, 4> kRun = {{
    {RunStatus::running, "running"},
    {RunStatus::complete, "complete"},
    {RunStatus::partial, "partial"},
    {RunStatus::failed, "failed"},
}};
constexpr std::array<std::pair<CompileStatus, std::string_view>, 4> kCompile = {{
    {CompileStatus::ok, "ok"},
    {CompileStatus::compile_error, "compile_error"},
    {CompileStatus::spills, "spills"},
    {CompileStatus::over_resources, "over_resources"},
}};
constexpr std::array<std::pair<CheckStatus, std::string_view>, 5> kCheck = {{
    {CheckStatus::pass, "pass"},
    {CheckStatus::wrong_result, "wrong_result"},
    {CheckStatus::fault, "fault"},
    {CheckStatus::timeout, "timeout"},
    {CheckStatus::not_run, "not_run"},
}};
constexpr std::array<std::pair<MeasurementStatus, std::string_view>, 3> kMeas = {{
    {MeasurementStatus::ok, "ok"},
    {MeasurementStatus::failed, "failed"},
    {MeasurementStatus::raced_out, "raced_out"},
}};
constexpr std::array<std::pair<BaselineKind, std::string_view>, 3> kBase = {{
    {BaselineKind::bf16, "bf16"},
    {BaselineKind::fp8_block, "fp8_block"},
    {BaselineKind::streaming_ceiling, "streaming_ceiling"},
}};

constexpr std::array<std::pair<FloorKind, std::string_view>, 2> kFloor = {{
    {FloorKind::launch, "launch"},
    {FloorKind::read, "read"},
}};
constexpr std::array<std::pair<StepPath, std::string_view>, 6> kPath = {{
    {StepPath::w4, "w4"},
    {StepPath::w4_pdl, "w4_pdl"},
    {StepPath::bf16, "bf16"},
    {StepPath::fp8_block, "fp8_block"},
    {StepPath::read_floor, "read_floor"},
    {StepPath::read_floor_pdl, "read_floor_pdl"},
}};
constexpr std::array<std::pair<StepStatus, std::string_view>, 2> kStepStatus = {{
    {StepStatus::ok, "ok"},
    {StepStatus::failed, "failed"},
}};

}  // namespace

std::string_view to_string(RunStatus s) {
  return name_of(s, kRun);
}
std::string_view to_string(CompileStatus s) {
  return name_of(s, kCompile);
}
std::string_view to_string(CheckStatus s) {
  return name_of(s, kCheck);
}
std::string_view to_string(MeasurementStatus s) {
  return name_of(s, kMeas);
}
std::string_view to_string(BaselineKind s) {
  return name_of(s, kBase);
}
std::string_view to_string(FloorKind s) {
  return name_of(s, kFloor);
}
std::string_view to_string(StepPath s) {
  return name_of(s, kPath);
}
std::string_view to_string(StepStatus s) {
  return name_of(s, kStepStatus);
}
std::string_view generation_name(int gen) {
  switch (gen) {
    case kGenMmaSync:
      return "mma_sync";
    case kGenSm90a:
      return "sm90a";
    case kGenLdg:
      return "ldg";
    default:
      return "?";
  }
}

std::optional<int> parse_generation(std::string_view name) {
  for (int g : {kGenMmaSync, kGenSm90a, kGenLdg})
    if (generation_name(g) == name) return g;
  return std::nullopt;
}

std::string to_string(const Config& c) {
  if (c.gen == kGenMmaSync && c.st == 0)
    return fmt::format("({}, {}, {}, {}, {})", c.wv, c.sk, c.mb, c.npw, c.nt);
  const std::string_view name = generation_name(c.gen);
  return fmt::format("{}({}, {}, {}, {}, {}, {})",
                     name == "?" ? fmt::format("gen{}", c.gen) : std::string(name), c.wv, c.sk,
                     c.mb, c.npw, c.nt, c.st);
}

std::string knob_tuple(const Config& c) {
  if (c.gen == kGenMmaSync && c.st == 0)
    return fmt::format("({}, {}, {}, {}, {})", c.wv, c.sk, c.mb, c.npw, c.nt);
  return fmt::format("({}, {}, {}, {}, {}, {})", c.wv, c.sk, c.mb, c.npw, c.nt, c.st);
}

RunStatus parse_run_status(std::string_view s) {
  return parse(s, kRun, "run status");
}
CompileStatus parse_compile_status(std::string_view s) {
  return parse(s, kCompile, "compile status");
}
CheckStatus parse_check_status(std::string_view s) {
  return parse(s, kCheck, "check status");
}
MeasurementStatus parse_measurement_status(std::string_view s) {
  return parse(s, kMeas, "measurement status");
}
BaselineKind parse_baseline_kind(std::string_view s) {
  return parse(s, kBase, "baseline kind");
}
FloorKind parse_floor_kind(std::string_view s) {
  return parse(s, kFloor, "floor kind");
}
StepPath parse_step_path(std::string_view s) {
  return parse(s, kPath, "step path");
}
StepStatus parse_step_status(std::string_view s) {
  return parse(s, kStepStatus, "step status");
}

}  // namespace r4::db
