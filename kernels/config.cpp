#include "kernels/config.hpp"

#include <fmt/core.h>

namespace r4::kernels {

std::vector<Config> config_space(KernelId id, const gpu::Arch& a) {
  std::vector<Config> out;
  if (id == KernelId::quant_act) {
    if (is_valid(id, Config{}, a)) out.push_back(Config{});
    return out;
  }
  for (int wv : {1, 2, 4, 8})
    for (int sk : {1, 2, 4, 8, 16})
      for (int mb : {1, 2, 4})
        for (int npw : {1, 2, 4})
          for (int nt : {0, 1}) {
            const Config c{wv, sk, mb, npw, nt};
            if (is_valid(id, c, a)) out.push_back(c);
          }
  // The sm90a generation where the device has it (is_valid says so), in the same nesting.
  for (int wv : {4, 8})
    for (int sk : {1, 2, 4, 8, 16})
      for (int mb : {1, 2, 4})
        for (int npw : {1, 2})
          for (int nt : {0, 1})
            for (int st : {4, 6, 8}) {
              const Config c{wv, sk, mb, npw, nt, kGenSm90a, st};
              if (is_valid(id, c, a)) out.push_back(c);
            }
  // The ldg generation where the device has it, in the same nesting (ST innermost).
  for (int wv : {2, 4, 8})
    for (int sk : {1, 2, 4, 8, 16})
      for (int mb : {1, 2})
        for (int npw : {1, 2, 4})
          for (int nt : {0, 1})
            for (int st : {2, 4, 8}) {
              const Config c{wv, sk, mb, npw, nt, kGenLdg, st};
              if (is_valid(id, c, a)) out.push_back(c);
            }
  return out;
}

std::vector<Config> config_space(KernelId id, const gpu::Arch& a, const Shape& s) {
  std::vector<Config> out;
  for (const auto& c : config_space(id, a))
    if (is_valid(id, c, a, s)) out.push_back(c);
  return out;
}

std::string to_string(const Config& c) {
  if (c.gen == kGenSm90a || c.gen == kGenLdg)
    return fmt::format("{}({}, {}, {}, {}, {}, {})", gen_name(c.gen), c.wv, c.sk, c.mb, c.npw,
                       c.nt, c.st);
  return fmt::format("({}, {}, {}, {}, {})", c.wv, c.sk, c.mb, c.npw, c.nt);
}

std::string_view gen_name(int gen) {
  return gen == kGenSm90a ? "sm90a" : gen == kGenLdg ? "ldg" : "mma_sync";
}

}  // namespace r4::kernels
