#include "kernels/config.hpp"

#include <fmt/core.h>

namespace r4::kernels {

namespace {

// One generation's candidate values per knob; config_space keeps the tuples is_valid accepts.
struct Ranges {
  int gen;
  std::initializer_list<int> wv, sk, mb, npw, st;
};

// WV, SK, MB, NPW, NT, ST nested in that order (ST innermost), one generation after another.
void add_valid(std::vector<Config>& out, KernelId id, const gpu::Arch& a, const Ranges& r) {
  for (int wv : r.wv)
    for (int sk : r.sk)
      for (int mb : r.mb)
        for (int npw : r.npw)
          for (int nt : {0, 1})
            for (int st : r.st) {
              const Config c{wv, sk, mb, npw, nt, r.gen, st};
              if (is_valid(id, c, a)) out.push_back(c);
            }
}

}  // namespace

std::vector<Config> config_space(KernelId id, const gpu::Arch& a) {
  std::vector<Config> out;
  if (is_quant(id)) {
    if (is_valid(id, Config{}, a)) out.push_back(Config{});
    return out;
  }
  // Each generation where the device has it (is_valid says so).
  add_valid(out, id, a, {kGenMmaSync, {1, 2, 4, 8}, {1, 2, 4, 8, 16}, {1, 2, 4}, {1, 2, 4}, {0}});
  add_valid(out, id, a,
            {kGenSm90a,
             {4, 8},
             {1, 2, 4, 8, 16, kSm90aStreamK, kSm90aBalanced},
             {1, 2, 3, 4},
             {1, 2},
             {4, 6, 8}});
  add_valid(out, id, a, {kGenLdg, {2, 4, 8}, {1, 2, 4, 8, 16}, {1, 2}, {1, 2, 4}, {2, 4, 8}});
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
    return fmt::format("{}({}, {}, {}, {}, {}, {})", gen_name(c.gen), c.wv, c.sk, c.mb, c.npw, c.nt,
                       c.st);
  return fmt::format("({}, {}, {}, {}, {})", c.wv, c.sk, c.mb, c.npw, c.nt);
}

std::string_view gen_name(int gen) {
  return gen == kGenSm90a ? "sm90a" : gen == kGenLdg ? "ldg" : "mma_sync";
}

}  // namespace r4::kernels
