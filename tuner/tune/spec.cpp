#include "tuner/tune/spec.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "db/rows.hpp"

namespace r4::tune {

namespace {

constexpr int kMaxM = 64;  // the decode band (DESIGN.md): GEMM_W4_MAX_M

[[noreturn]] void fail(const std::string& origin, const std::string& what) {
  throw SpecError(fmt::format("{}: {}", origin, what));
}

template <class T>
T get_or(const toml::node_view<const toml::node> v, T dflt, const std::string& origin,
         const std::string& key) {
  if (!v) return dflt;
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto s = v.value<std::string>()) return *s;
    fail(origin, key + " must be a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (auto b = v.value<bool>()) return *b;
    fail(origin, key + " must be true or false");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto d = v.value<double>()) return static_cast<T>(*d);
    fail(origin, key + " must be a number");
  } else {
    if (auto i = v.value<std::int64_t>()) return static_cast<T>(*i);
    fail(origin, key + " must be an integer");
  }
}

std::vector<int> int_list(const toml::node_view<const toml::node> v, const std::string& origin,
                          const std::string& key) {
  std::vector<int> out;
  if (!v) return out;
  const auto* arr = v.as_array();
  if (!arr) fail(origin, key + " must be an array of integers");
  for (const auto& e : *arr) {
    auto i = e.value<std::int64_t>();
    if (!i) fail(origin, key + " must contain integers only");
    out.push_back(static_cast<int>(*i));
  }
  return out;
}

std::vector<std::string> string_list(const toml::node_view<const toml::node> v,
                                     const std::string& origin, const std::string& key) {
  std::vector<std::string> out;
  if (!v) return out;
  const auto* arr = v.as_array();
  if (!arr) fail(origin, key + " must be an array of strings");
  for (const auto& e : *arr) {
    auto s = e.value<std::string>();
    if (!s) fail(origin, key + " must contain strings only");
    out.push_back(*s);
  }
  return out;
}

// `[space.<kernel>] gen`: generation numbers or names (kernels/config.hpp gen_name).
std::vector<int> gen_list(const toml::node_view<const toml::node> v, const std::string& origin,
                          const std::string& key) {
  std::vector<int> out;
  if (!v) return out;
  const auto* arr = v.as_array();
  const auto* what = " must contain only 0 / \"mma_sync\", 1 / \"sm90a\" and 2 / \"ldg\"";
  if (!arr) fail(origin, key + what);
  for (const auto& e : *arr) {
    if (auto i = e.value<std::int64_t>();
        i && *i >= 0 && *i <= 64 &&
        db::generation_name(static_cast<int>(*i)) != "?") {  // a known number
      out.push_back(static_cast<int>(*i));
    } else if (auto n = e.value<std::string>(); n && db::parse_generation(*n)) {
      out.push_back(*db::parse_generation(*n));
    } else {
      fail(origin, key + what);
    }
  }
  return out;
}

const std::set<std::string> kKnownKernels = {"gemm_w4a16_nt", "gemm_w4a8_nt", "gemm_w4a8fp8_nt",
                                             "gemm_mxfp4a8fp8_nt"};
const std::set<std::string> kKnownBaselines = {"bf16", "fp8_block"};
const std::set<std::string> kTopKeys = {"name",  "description", "kernels",   "shapes",
                                        "bands", "space",       "baselines", "pool",
                                        "stop",  "compile",     "step",      "test"};

void check_keys(const toml::node_view<const toml::node> v, const std::set<std::string>& known,
                const std::string& origin, const std::string& where) {
  const auto* tab = v.as_table();
  if (!v) return;
  if (!tab) fail(origin, where + " must be a table");
  for (const auto& [k, _] : *tab) {
    if (!known.count(std::string(k.str()))) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      fail(origin, fmt::format("unknown key '{}.{}' (known: {})", where, k.str(), list));
    }
  }
}

// [step]: order (required, shape names, repeats allowed), name, m. Runs after shapes and bands.
StepSpec parse_step(const toml::node_view<const toml::node> v, const Spec& s,
                    const std::string& origin) {
  StepSpec st;
  st.name = get_or<std::string>(v["name"], s.name, origin, "step.name");
  if (st.name.empty())
    fail(origin, "step.name must not be empty (leave it out for the spec's name)");
  if (!v["order"])
    fail(origin, "step.order is required: the shape names in the order a step runs them");
  st.order = string_list(v["order"], origin, "step.order");
  if (st.order.empty())
    fail(origin, "step.order is empty: name the shapes a step runs, in order (repeats allowed)");
  std::string named;
  std::size_t unnamed = 0;
  for (const auto& sh : s.shapes) {
    if (sh.name.empty()) {
      ++unnamed;
      continue;
    }
    named += (named.empty() ? "" : ", ") + sh.name;
  }
  for (std::size_t i = 0; i < st.order.size(); ++i) {
    const std::string& want = st.order[i];
    const auto it = std::find_if(s.shapes.begin(), s.shapes.end(),
                                 [&](const ShapeSpec& sh) { return sh.name == want; });
    if (it != s.shapes.end()) {
      st.chain.push_back(static_cast<std::size_t>(it - s.shapes.begin()));
      continue;
    }
    std::string msg = fmt::format("step.order[{}]: unknown shape '{}'", i, want);
    if (!named.empty()) msg += fmt::format(" (this spec's shapes: {})", named);
    if (unnamed)
      msg += fmt::format(
          "; {} of its {} shapes have no name and cannot be referenced: give them name = \"..\"",
          unnamed, s.shapes.size());
    fail(origin, msg);
  }
  if (v["m"]) {
    const auto ms = int_list(v["m"], origin, "step.m");
    if (ms.empty()) fail(origin, "step.m is empty: list M values, or leave it out for the default");
    for (int m : ms)
      if (m < 1 || m > kMaxM) fail(origin, fmt::format("step.m: {} is outside 1..64", m));
    st.m = ms;
  } else {
    // Each band's top M (where the winners are chosen), plus the decode rows serving runs most.
    st.m = s.band_limits;
    st.m.push_back(1);
    st.m.push_back(8);
  }
  std::sort(st.m.begin(), st.m.end());
  st.m.erase(std::unique(st.m.begin(), st.m.end()), st.m.end());
  return st;
}

}  // namespace

Spec parse_spec(const std::string& text, const std::string& origin) {
  toml::table parsed;
  try {
    parsed = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    fail(origin, fmt::format("line {}, column {}: {}", b.line, b.column, e.description()));
  }
  const toml::table& t = parsed;
  for (const auto& [k, v] : t) {
    if (!kTopKeys.count(std::string(k.str())))
      fail(origin, fmt::format("unknown key '{}' (known: name, description, kernels, shapes, "
                               "bands, space, baselines, pool, stop, compile, step)",
                               k.str()));
  }
  check_keys(t["bands"], {"limits", "extra_m"}, origin, "bands");
  check_keys(t["pool"], {"llc_factor", "llc_bytes", "max_bytes", "screen_slices"}, origin, "pool");
  check_keys(t["stop"],
             {"rel_ci", "min_samples", "race_after", "screen_ratio", "race_margin", "max_samples",
              "max_seconds", "race", "finalists", "warmup_replays"},
             origin, "stop");
  check_keys(t["compile"], {"arch"}, origin, "compile");
  check_keys(t["test"], {"inject"}, origin, "test");
  check_keys(t["step"], {"name", "order", "m"}, origin, "step");
  Spec s;
  s.text = text;
  s.name = get_or<std::string>(t["name"], "", origin, "name");
  if (s.name.empty()) fail(origin, "name is required");
  s.description = get_or<std::string>(t["description"], "", origin, "description");

  s.kernels = string_list(t["kernels"], origin, "kernels");
  if (s.kernels.empty()) fail(origin, "kernels must name at least one kernel");
  for (const auto& k : s.kernels)
    if (!kKnownKernels.count(k))
      fail(origin, "unknown kernel '" + k +
                       "' (known: gemm_w4a16_nt, gemm_w4a8_nt, gemm_w4a8fp8_nt, "
                       "gemm_mxfp4a8fp8_nt)");

  const auto* shapes = t["shapes"].as_array();
  if (t["step"] && (!shapes || shapes->empty()))
    fail(origin,
         "[step] chains the spec's shapes, but this spec has none: shapes = [{ name = .., n = .., "
         "k = .. }, ...] is missing or empty");
  if (!shapes || shapes->empty()) fail(origin, "shapes must be a non-empty array of tables");
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (size_t i = 0; i < shapes->size(); ++i) {
    const auto* tab = (*shapes)[i].as_table();
    const std::string where = fmt::format("shapes[{}]", i);
    if (!tab) fail(origin, where + " must be a table {n = .., k = .., name = ..}");
    const toml::node_view<const toml::node> view{tab};
    ShapeSpec sh;
    sh.n = get_or<std::int64_t>(view["n"], 0, origin, where + ".n");
    sh.k = get_or<std::int64_t>(view["k"], 0, origin, where + ".k");
    sh.name = get_or<std::string>(view["name"], "", origin, where + ".name");
    if (sh.n <= 0 || sh.n % 16)
      fail(origin, fmt::format("{}: n = {} must be a positive multiple of 16", where, sh.n));
    if (sh.k <= 0 || sh.k % 128)
      fail(origin,
           fmt::format("{}: k = {} must be a positive multiple of 128 (the group)", where, sh.k));
    if (!seen.insert({sh.n, sh.k}).second)
      fail(origin, fmt::format("{}: shape ({}, {}) is listed twice", where, sh.n, sh.k));
    s.shapes.push_back(sh);
  }

  s.band_limits = int_list(t["bands"]["limits"], origin, "bands.limits");
  if (s.band_limits.empty()) fail(origin, "bands.limits must list at least one M limit");
  for (size_t i = 0; i < s.band_limits.size(); ++i) {
    const int m = s.band_limits[i];
    if (m < 1 || m > kMaxM) fail(origin, fmt::format("bands.limits: {} is outside 1..64", m));
    if (i && m <= s.band_limits[i - 1]) fail(origin, "bands.limits must be strictly ascending");
  }
  s.extra_m = int_list(t["bands"]["extra_m"], origin, "bands.extra_m");
  for (int m : s.extra_m)
    if (m < 1 || m > kMaxM) fail(origin, fmt::format("bands.extra_m: {} is outside 1..64", m));

  if (const auto* space = t["space"].as_table()) {
    for (const auto& [kname, node] : *space) {
      const std::string kn(kname.str());
      if (!kKnownKernels.count(kn)) fail(origin, "space." + kn + ": unknown kernel");
      const toml::node_view<const toml::node> v{node};
      check_keys(v, {"WV", "SK", "MB", "NPW", "NT", "gen", "ST", "arch"}, origin, "space." + kn);
      SpaceSpec sp;
      sp.wv = int_list(v["WV"], origin, "space." + kn + ".WV");
      sp.sk = int_list(v["SK"], origin, "space." + kn + ".SK");
      sp.mb = int_list(v["MB"], origin, "space." + kn + ".MB");
      sp.npw = int_list(v["NPW"], origin, "space." + kn + ".NPW");
      sp.nt = int_list(v["NT"], origin, "space." + kn + ".NT");
      sp.gen = gen_list(v["gen"], origin, "space." + kn + ".gen");
      sp.st = int_list(v["ST"], origin, "space." + kn + ".ST");
      for (const auto& a : string_list(v["arch"], origin, "space." + kn + ".arch")) {
        const auto one = gpu::Arch::parse(a);
        if (!one)
          fail(origin, fmt::format("space.{}.arch: \"{}\" is not a GPU arch (supported: {})", kn, a,
                                   gpu::supported_arch_list()));
        sp.arch.push_back(*one);
      }
      if (v["arch"] && sp.arch.empty()) fail(origin, "space." + kn + ".arch must not be empty");
      for (int x : sp.nt)
        if (x != 0 && x != 1) fail(origin, "space." + kn + ".NT must contain only 0 and 1");
      for (const auto* l : {&sp.wv, &sp.mb, &sp.npw, &sp.st})
        for (int x : *l)
          if (x < 1 || x > 64) fail(origin, "space." + kn + ": knob values must be in 1..64");
      for (int x : sp.sk)  // split-K factors, or the sm90a stream-K block count (132)
        if (x < 1 || x > 256) fail(origin, "space." + kn + ".SK: values must be in 1..256");
      s.space[kn] = sp;
    }
  }

  s.baselines = string_list(t["baselines"], origin, "baselines");
  for (const auto& b : s.baselines)
    if (!kKnownBaselines.count(b))
      fail(origin, "unknown baseline '" + b + "' (known: bf16, fp8_block)");

  s.pool.llc_factor = get_or<double>(t["pool"]["llc_factor"], 4.0, origin, "pool.llc_factor");
  if (s.pool.llc_factor < 1.0) fail(origin, "pool.llc_factor must be >= 1");
  s.pool.llc_bytes = get_or<std::int64_t>(t["pool"]["llc_bytes"], 0, origin, "pool.llc_bytes");
  s.pool.max_bytes =
      get_or<std::int64_t>(t["pool"]["max_bytes"], 32LL << 30, origin, "pool.max_bytes");
  s.pool.screen_slices = get_or<int>(t["pool"]["screen_slices"], 4, origin, "pool.screen_slices");
  if (s.pool.screen_slices < 1 || s.pool.screen_slices > 64)
    fail(origin, "pool.screen_slices must be in 1..64 (1: screen over the whole pool)");

  auto& st = s.stop;
  st.rel_ci = get_or<double>(t["stop"]["rel_ci"], st.rel_ci, origin, "stop.rel_ci");
  st.min_samples =
      get_or<int>(t["stop"]["min_samples"], st.min_samples, origin, "stop.min_samples");
  st.race_after = get_or<int>(t["stop"]["race_after"], st.race_after, origin, "stop.race_after");
  st.screen_ratio =
      get_or<double>(t["stop"]["screen_ratio"], st.screen_ratio, origin, "stop.screen_ratio");
  st.race_margin =
      get_or<double>(t["stop"]["race_margin"], st.race_margin, origin, "stop.race_margin");
  st.max_samples =
      get_or<int>(t["stop"]["max_samples"], st.max_samples, origin, "stop.max_samples");
  st.max_seconds =
      get_or<double>(t["stop"]["max_seconds"], st.max_seconds, origin, "stop.max_seconds");
  st.race = get_or<bool>(t["stop"]["race"], st.race, origin, "stop.race");
  st.finalists = get_or<int>(t["stop"]["finalists"], st.finalists, origin, "stop.finalists");
  st.warmup_replays =
      get_or<int>(t["stop"]["warmup_replays"], st.warmup_replays, origin, "stop.warmup_replays");
  if (st.rel_ci <= 0 || st.rel_ci > 0.5) fail(origin, "stop.rel_ci must be in (0, 0.5]");
  if (st.min_samples < 3) fail(origin, "stop.min_samples must be >= 3");
  if (st.max_samples < st.min_samples) fail(origin, "stop.max_samples must be >= min_samples");
  if (st.race_after < 2 || st.race_after > st.min_samples)
    fail(origin, "stop.race_after must be in 2..min_samples");
  if (st.warmup_replays < 0) fail(origin, "stop.warmup_replays must be >= 0");
  if (!(st.race_margin >= 0 && st.race_margin <= 0.2))
    fail(origin, "stop.race_margin must be in 0..0.2 (a fraction of the best's CI high)");
  if (st.screen_ratio != 0 && st.screen_ratio < 1.05)
    fail(origin, "stop.screen_ratio must be 0 (off) or >= 1.05 (samples vary by a few percent)");
  if (st.finalists < 1) fail(origin, "stop.finalists must be >= 1");

  s.compile_arch = get_or<std::string>(t["compile"]["arch"], "sm_90", origin, "compile.arch");
  if (t["step"]) s.step = parse_step(t["step"], s, origin);
  s.inject = string_list(t["test"]["inject"], origin, "test.inject");
  for (const auto& i : s.inject)
    if (i != "oob" && i != "hang" && i != "wrong")
      fail(origin, "test.inject: unknown fault '" + i + "' (known: oob, hang, wrong)");
  return s;
}

Spec load_spec(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path.string() + ": cannot read the sweep spec (no such file?)");
  std::stringstream ss;
  ss << in.rdbuf();
  Spec s = parse_spec(ss.str(), path.string());
  s.path = path;
  return s;
}

std::vector<int> measured_ms(const Spec& s) {
  std::set<int> ms(s.band_limits.begin(), s.band_limits.end());
  ms.insert(s.extra_m.begin(), s.extra_m.end());
  return {ms.begin(), ms.end()};
}

bool SpaceSpec::applies_to(const gpu::Arch& a) const {
  if (arch.empty()) return true;
  // By name, less NVIDIA's arch-specific suffix: sm_90 and sm_90a are one GPU; AMD names differ
  // below the version (gfx1200 and gfx1201 are both 12.0).
  auto base = [](const gpu::Arch& x) {
    std::string n = x.name;
    if (x.vendor == gpu::Vendor::nvidia && !n.empty() && n.back() == 'a') n.pop_back();
    return n;
  };
  return std::any_of(arch.begin(), arch.end(), [&](const gpu::Arch& x) {
    return x.vendor == a.vendor && base(x) == base(a);
  });
}

}  // namespace r4::tune
