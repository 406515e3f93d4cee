// hipBLASLt stands behind the same interface; it is not built yet (no AMD device to test it on),
// so it reports itself unavailable instead of guessing.
#include "kernels/baseline.hpp"

namespace r4::kernels {
namespace {

class HipBlasLtStub final : public Baseline {
 public:
  explicit HipBlasLtStub(BaselineKind k) : kind_(k) {}
  [[nodiscard]] std::string_view name() const override {
    return kind_ == BaselineKind::bf16 ? "hipblaslt_bf16" : "hipblaslt_fp8_block";
  }
  [[nodiscard]] std::string unavailable_reason() const override {
    return "hipBLASLt baseline not built/untested";
  }
  [[nodiscard]] BaselineResult time_call(const Shape&, const TimingSpec&) override {
    return {std::nullopt, unavailable_reason()};
  }
  [[nodiscard]] std::unique_ptr<PreparedBaseline> prepare(const Shape&, const TimingSpec&,
                                                          std::string& why) override {
    why = unavailable_reason();
    return nullptr;
  }

 private:
  BaselineKind kind_;
};

}  // namespace

std::unique_ptr<Baseline> make_hipblaslt_baseline(BaselineKind kind, gpu::Context&, gpu::Stream&) {
  return std::make_unique<HipBlasLtStub>(kind);
}

}  // namespace r4::kernels
