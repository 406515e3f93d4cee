#include "r4d/select.hpp"

#include <algorithm>

#include "detail.hpp"
#include "r4d/constants.hpp"
#include "r4d/launch.hpp"

namespace r4d {
namespace {

bool built(detail::KernelId id) {
  const auto ks = detail::compiled_kernels();
  return std::any_of(ks.begin(), ks.end(), [&](const auto& e) { return e.id == id; });
}

}  // namespace

std::optional<std::string_view> select(std::string_view op, std::int64_t m, std::int64_t k,
                                       std::int64_t n, std::string_view dtype) {
  if (op == "quant_act") {
    if (dtype != "bf16" || k <= 0 || k % 8 != 0 || !built(detail::KernelId::quant_act))
      return std::nullopt;
    return "quant_act";
  }
  if (op != "gemm_nt") return std::nullopt;
  const auto d = parse_dtype(dtype);
  if (!d || m < 1 || m > GEMM_W4_MAX_M || n <= 0 || n % 16 != 0 || k <= 0 || k % GEMM_W4_GROUP != 0)
    return std::nullopt;
  if (!built(detail::kernel_of(*d))) return std::nullopt;
  return *d == Dtype::w4a16 ? "gemm_w4a16_nt" : "gemm_w4a8_nt";
}

// The family's rule (kernels/config.hpp), so r4d quantises in the order the tuner timed.
ActOrder act_order(Dtype d, const Config& cfg) {
  switch (r4::kernels::act_order(detail::kernel_of(d), detail::to_kernels(cfg))) {
    case r4::kernels::ActOrder::sm90a:
      return ActOrder::sm90a;
    case r4::kernels::ActOrder::sm90a_mx:
      return ActOrder::sm90a_mx;
    case r4::kernels::ActOrder::natural:
      break;
  }
  return ActOrder::natural;
}

}  // namespace r4d
