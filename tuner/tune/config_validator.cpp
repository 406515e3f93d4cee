#include "tuner/tune/config_validator.hpp"

#include <algorithm>

#include "kernels/family.hpp"
#include "tuner/gpu/arch.hpp"

namespace r4::tune {

db::ConfigValidator kernel_config_validator() {
  return [](const db::KernelConfigRow& row) {
    const auto id = kernels::parse_kernel(row.kernel);
    const auto arch = gpu::Arch::parse(row.arch);
    if (!id || !arch) return false;
    const db::Config& c = row.config;
    return kernels::is_valid(*id, {c.wv, c.sk, c.mb, c.npw, c.nt, c.gen, c.st}, *arch,
                             {row.n, row.k, std::max(1, row.m)});
  };
}

}  // namespace r4::tune
