#include "tuner/tune/plan.hpp"

#include <algorithm>

#include "kernels/family.hpp"

namespace r4::tune {

namespace {

bool in_list(const std::vector<int>& allowed, int v) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

}  // namespace

Plan make_plan(const Spec& spec, const gpu::Arch& arch) {
  Plan p;
  const auto ms = measured_ms(spec);
  for (const auto& kname : spec.kernels) {
    const auto id = *kernels::parse_kernel(kname);
    auto sp = spec.space.count(kname) ? spec.space.at(kname) : SpaceSpec{};
    if (!sp.applies_to(arch)) sp = SpaceSpec{};  // scoped to other arches: the default space
    for (const auto& c : kernels::config_space(id, arch)) {
      if (!in_list(sp.wv, c.wv) || !in_list(sp.sk, c.sk) || !in_list(sp.mb, c.mb) ||
          !in_list(sp.npw, c.npw) || !in_list(sp.nt, c.nt) || !in_list(sp.gen, c.gen))
        continue;
      if (c.gen != kernels::kGenMmaSync && !in_list(sp.st, c.st)) continue;  // ST: sm90a only
      std::size_t uses = 0;
      for (const auto& sh : spec.shapes)
        for (int m : ms) uses += kernels::is_valid(id, c, arch, {sh.n, sh.k, m});
      if (!uses) continue;
      p.measurements += uses;
      p.units.push_back({id, c, {}, kernels::compile_request(id, c, arch), {}, {}, 0, false, {}});
    }
  }
  // Injected faulty variants: the first kernel's first config valid everywhere, recompiled with a
  // fault. They compile to distinct keys (the define differs) and are verified and timed like any
  // other candidate, so the sweep must survive them.
  for (const auto& fault : spec.inject) {
    const auto id = *kernels::parse_kernel(spec.kernels.front());
    const kernels::Config c{4, 1, 1, 1, 0};
    kernels::CompileOptions o;
    if (fault == "oob") o.test_fault = 1;
    if (fault == "hang") o.test_fault = 2;
    if (fault == "wrong") o.broken_scale = true;
    p.units.push_back(
        {id, c, fault, kernels::compile_request(id, c, arch, o), {}, {}, 0, false, {}});
    for (const auto& sh : spec.shapes)
      for (int m : ms) p.measurements += kernels::is_valid(id, c, arch, {sh.n, sh.k, m});
  }
  p.races = spec.shapes.size() * ms.size();
  return p;
}

}  // namespace r4::tune
