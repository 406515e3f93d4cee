// r4kern: the kernel family's device driver. Compiles every valid config of every kernel for the
// device (in parallel), runs the correctness sweep (poisoned outputs, GPU reference for every
// shape, CPU reference where it is cheap, quant_act bit for bit, split-K determinism, a
// deliberately broken variant that must fail), then the brute-force timing sweep with cold
// weights, the cuBLASLt baselines and a streaming-read ceiling, and prints a table + writes CSV.
//
//   r4kern [--check] [--time] [--out DIR] [--quick] [--time-budget S] [--gen 0|1|2]
//          [--stride N] [--shapes a,b,...]
//   r4kern --one VARIANT:WV,SK,MB,NPW,NT,GEN,ST --m M [--shapes s] [--define D]... [--binary PATH]
// --gen keeps one kernel generation (kernels/config.hpp), --stride every Nth config of the sm90a
// generation (a quick look at a large space), --shapes the named seed shapes. --one checks the
// config over poison, then times it alone, with its quantiser plain and as the launchers put it
// under PDL, and as a race times it; for a balanced grid (which the launchers keep plain) also
// under PDL forced. A --define reaches the GEMM and its quantiser (quant_act checked bit for bit
// against the CPU reference, quant_act_fp8 against the Verifier's build). R4_EXP_CARVEOUT=N in
// the environment (experiment only, tuner/gpu/backend_cuda.cpp) replaces the largest
// shared-memory carveout every kernel asks for (docs/PERF.md session 44).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "kernels/baseline.hpp"
#include "kernels/family.hpp"
#include "kernels/floors.hpp"
#include "kernels/host_half.hpp"
#include "kernels/reference.hpp"
#include "kernels/timing.hpp"
#include "kernels/tolerance.hpp"
#include "kernels/verify.hpp"
#include "quant/pack.hpp"
#include "tuner/measure/floors.hpp"

namespace r4::kernels::tool {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// --one's note on the cluster split-K launch (kernels/family.hpp cluster_launch): the grid's
// clusters against what the device holds at once, and whether the launch is a cluster.
std::string cluster_note(gpu::Kernel& k, KernelId id, const Config& c, const gpu::Arch& arch,
                         const Shape& s) {
  const auto d = launch_dims(id, c, arch, s);
  const unsigned per = d.cluster.x * d.cluster.y * d.cluster.z;
  if (per <= 1) return "";
  const auto clusters = static_cast<long>(d.grid.x) * d.grid.y * d.grid.z / per;
  return fmt::format(", cluster split-K: {} clusters of {}, {} fit: {}", clusters, per,
                     k.max_active_clusters(d.block, d.shared_bytes, d.cluster),
                     cluster_launch(k, d) ? "cluster" : "workspace");
}

struct Variant {
  KernelId id;
  bool a_bf16;
  const char* label;
};
constexpr Variant kVariants[] = {{KernelId::gemm_w4a16_nt, false, "w4a16_f16"},
                                 {KernelId::gemm_w4a16_nt, true, "w4a16_bf16"},
                                 {KernelId::gemm_w4a8_nt, false, "w4a8"}};
// --one only: the fp8-activation GEMMs (issue 13), checked by the sweep's own Verifier.
constexpr Variant kFp8Variants[] = {{KernelId::gemm_w4a8fp8_nt, false, "w4a8fp8"},
                                    {KernelId::gemm_mxfp4a8fp8_nt, false, "mxfp4"}};

struct SeedShape {
  std::int64_t n, k;
  const char* name;
};
constexpr SeedShape kSeedShapes[] = {{3072, 5120, "qkv"},         {5120, 2048, "o"},
                                     {17408, 5120, "gate_up"},    {5120, 8704, "down"},
                                     {1280, 5120, "kernel_proj"}, {256, 5120, "hidden_proj"}};
constexpr std::int64_t kCheckMs[] = {1, 7, 8, 16, 33, 64};
constexpr std::int64_t kTimeMs[] = {1, 8, 16, 32, 64};

struct Built {
  std::unique_ptr<gpu::Module> module;
  gpu::Kernel* kernel = nullptr;
  gpu::Resources res;
};

struct Args {
  bool check = false, time = false, quick = false, floors = false;
  std::string out = ".";
  double time_budget_s = 300;
  int gen = -1;  // -1: both generations
  // --one VARIANT:WV,SK,MB,NPW,NT,GEN,ST --m M: only that config, launched 20 times over a pool of
  // cold copies of the first --shapes shape (for ncu: one kernel, nothing else around it).
  // VARIANT: w4a16_f16, w4a16_bf16, w4a8, and the fp8-activation GEMMs w4a8fp8 and mxfp4.
  std::string one;
  int one_m = 8;
  std::vector<std::string> defines;  // --define NAME=VALUE, added to --one's compile
  // --binary PATH: --one also writes the module it compiled (the sweep's NVRTC build of that
  // config: a cubin on NVIDIA) there, for cuobjdump -sass beside r4d's nvcc build.
  std::string binary;
  int stride = 1;      // every Nth sm90a config
  std::string shapes;  // comma-separated seed shape names; empty: all
};

bool shape_wanted(const Args& a, const char* name) {
  if (a.shapes.empty()) return true;
  const std::string list = "," + a.shapes + ",";
  return list.find("," + std::string(name) + ",") != std::string::npos;
}

// Every --shapes entry names a seed shape (or one of --check's edge shapes) or is NxK; an unknown
// name is refused here. It used to fall back to qkv silently, and session 39's call 1 timed qkv
// for lines labelled with other shapes (it passed the sweep's names, e.g. qkv_proj).
// Returns whether every entry is known; `bad` gets the first that is not.
bool shapes_known(const std::string& list, std::string& bad) {
  std::size_t from = 0;
  while (from <= list.size()) {
    const std::size_t to = std::min(list.find(',', from), list.size());
    const std::string name = list.substr(from, to - from);
    from = to + 1;
    long long n = 0, k = 0;
    if (std::sscanf(name.c_str(), "%lldx%lld", &n, &k) == 2 && n > 0 && k > 0) continue;
    if (name.rfind("edge_", 0) == 0) continue;  // --check's edge shapes (Driver::check)
    const bool seed = std::any_of(std::begin(kSeedShapes), std::end(kSeedShapes),
                                  [&](const SeedShape& x) { return name == x.name; });
    if (!seed) {
      bad = name;
      return false;
    }
  }
  return true;
}

class Driver {
 public:
  explicit Driver(const Args& a) : args_(a) {
    backend_ = gpu::make_cuda_backend();
    if (backend_->device_count() == 0) throw gpu::Error("no CUDA device: " + backend_->status());
    ctx_ = backend_->open(0);
    stream_ = ctx_->create_stream();
    const auto& i = ctx_->info();
    arch_ = i.arch;
    fmt::print("device: {} ({}), {} SMs, L2 {} MB, {} GB, {} ; {}\n", i.name, arch_.name,
               i.multiprocessors, i.l2_bytes >> 20, i.memory_bytes >> 30, i.driver_version,
               i.runtime_version);
  }

  void compile_all() {
    const auto t0 = Clock::now();
    struct Job {
      std::string key;
      gpu::CompileRequest req;
    };
    std::vector<Job> jobs;
    for (const auto& v : kVariants) {
      std::vector<Config> space;
      int nth = 0;
      for (const auto& c : config_space(v.id, arch_)) {
        if (args_.gen >= 0 && c.gen != args_.gen) continue;
        if (c.gen == kGenSm90a && nth++ % args_.stride != 0) continue;
        space.push_back(c);
      }
      if (args_.quick) space.resize(std::min<std::size_t>(space.size(), 24));
      for (const auto& c : space)
        jobs.push_back({key(v, c, false), compile_request(v.id, c, arch_, {v.a_bf16, false})});
      const Config bc{4, 2, 1, 1, 1};
      jobs.push_back({key(v, bc, true), compile_request(v.id, bc, arch_, {v.a_bf16, true})});
    }
    jobs.push_back({"quant_act", compile_request(KernelId::quant_act, Config{}, arch_)});
    jobs.push_back({"reference", reference_compile_request(arch_)});
    std::vector<gpu::CompileResult> results(jobs.size());
    std::atomic<std::size_t> next{0};
    const unsigned nthreads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nthreads; ++t)
      pool.emplace_back([&] {
        auto be = gpu::make_cuda_backend();
        for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();)
          results[j] = be->compile(jobs[j].req);
      });
    for (auto& th : pool) th.join();
    int spills = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      if (!results[j].ok)
        throw gpu::Error("compile failed: " + jobs[j].key + "\n" + results[j].log);
      Built b;
      b.module = ctx_->load(results[j].binary);
      const std::string kname = jobs[j].key == "reference"          ? "ref_gemm_w4"
                                : jobs[j].key.rfind("w4a8", 0) == 0 ? "gemm_w4a8_nt"
                                : jobs[j].key == "quant_act"        ? "quant_act"
                                                                    : "gemm_w4a16_nt";
      b.kernel = &b.module->kernel(kname);
      if (auto it = results[j].resources.find(kname); it != results[j].resources.end())
        b.res = it->second;
      if (b.res.spills()) ++spills;
      built_.emplace(jobs[j].key, std::move(b));
    }
    fmt::print("compiled {} kernels on {} threads in {:.1f} s; {} spill\n", jobs.size(), nthreads,
               since(t0), spills);
  }

  // An experiment define that leaves a stage of the kernel out on purpose (R4G_LESION != 0,
  // kernels/nv/gemm_w4_sm90a.h): its results are wrong by design, and --one times it anyway,
  // labelled, so the time says what the stage costs (METHOD.md). Nothing else is timed unchecked,
  // and the sweep never compiles a lesion.
  [[nodiscard]] bool lesion() const {
    for (const auto& d : args_.defines)
      if ((d.rfind("R4G_LESION=", 0) == 0 && d != "R4G_LESION=0") ||
          (d.rfind("R4L_LESION=", 0) == 0 && d != "R4L_LESION=0"))
        return true;
    return false;
  }

  // ---------------------------------------------------------------- correctness
  int check() {
    const auto t0 = Clock::now();
    int failures = 0;
    failures += check_quant_act();
    std::vector<SeedShape> shapes(std::begin(kSeedShapes), std::end(kSeedShapes));
    shapes.push_back({16, 128, "edge_16x128"});
    shapes.push_back({32, 256, "edge_32x256"});
    shapes.push_back({64, 384, "edge_64x384"});
    std::map<std::string, std::pair<long, long>> counts;  // variant -> (pass, fail)
    for (const auto& sh : shapes)
      if (shape_wanted(args_, sh.name) || sh.n < 256) failures += check_shape(sh, counts);
    for (const auto& [v, pf] : counts)
      fmt::print("check {:<11} {:>7} passed {:>5} failed\n", v, pf.first, pf.second);
    failures += check_broken();
    fmt::print("correctness: {} in {:.1f} s\n", failures == 0 ? "ALL PASS" : "FAILURES", since(t0));
    return failures;
  }

  // ---------------------------------------------------------------- timing
  void time_all();
  // --floors: the launch floor and each --shapes shape's read floor, both floor kernels
  // (read_floor.cu: r4_read_floor, the sweep's; r4_read_floor_fused, the one-loop experiment).
  int floors_only();
  // Both read floors of `sh` over `fpool`, printed and written to `csv`; the sweep's (two-loop) one
  // is returned.
  double time_floors(gpu::Module& mod, const SeedShape& sh, const std::vector<W4Weights>& fpool,
                     std::ostream& csv);

  // Compiles `req`, loads it and keeps it in built_ under `key` (kernel `kname`).
  void build_one(const std::string& key, const gpu::CompileRequest& req, const char* kname) {
    auto r = backend_->compile(req);
    if (!r.ok) throw gpu::Error("compile failed: " + key + "\n" + r.log);
    Built b;
    b.module = ctx_->load(r.binary);
    b.kernel = &b.module->kernel(kname);
    built_.emplace(key, std::move(b));
  }

  // --one: one config, 20 launches over cold copies (a target for ncu).
  int run_one() {
    const auto colon = args_.one.find(':');
    const std::string vname = args_.one.substr(0, colon);
    int f[7] = {0, 0, 0, 0, 0, 0, 0};
    std::sscanf(args_.one.c_str() + colon + 1, "%d,%d,%d,%d,%d,%d,%d", &f[0], &f[1], &f[2], &f[3],
                &f[4], &f[5], &f[6]);
    const Config c{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
    const Variant* v = nullptr;
    for (const auto& x : kVariants)
      if (vname == x.label) v = &x;
    for (const auto& x : kFp8Variants)
      if (vname == x.label) v = &x;
    const SeedShape* sh = &kSeedShapes[0];
    for (const auto& x : kSeedShapes)
      if (shape_wanted(args_, x.name)) {
        sh = &x;
        break;
      }
    // --shapes NxK (e.g. 16896x5120): any shape, for grid-size experiments (session 36: gate_up's
    // 272 CTAs against 264, two per SM).
    SeedShape custom{0, 0, args_.shapes.c_str()};
    if (long long n = 0, k = 0; std::sscanf(args_.shapes.c_str(), "%lldx%lld", &n, &k) == 2) {
      custom.n = n;
      custom.k = k;
      sh = &custom;
    }
    const Shape s{sh->n, sh->k, args_.one_m};
    if (!v || !is_valid(v->id, c, arch_, s)) {
      fmt::print(stderr, "r4kern --one: '{}' is not a valid variant:config here\n", args_.one);
      return 2;
    }
    auto req = compile_request(v->id, c, arch_, {v->a_bf16, false});
    // A --define of a name the config defines replaces it: `--define R4_SK=4` compiles SK 4 apart
    // from the shared SK 2/4/8 body (R4_SK=0, kernels/config.hpp sk_define), the A/B of session 27.
    for (const auto& d : args_.defines) {
      const auto name = d.substr(0, d.find('='));
      const auto same = std::find_if(req.defines.begin(), req.defines.end(), [&](const auto& x) {
        return x.substr(0, x.find('=')) == name;
      });
      if (same != req.defines.end())
        *same = d;
      else
        req.defines.push_back(d);
    }
    auto res = backend_->compile(req);
    if (!res.ok) throw gpu::Error("compile failed: " + res.log);
    if (!args_.binary.empty()) {
      std::ofstream bin(args_.binary, std::ios::binary);
      bin.write(reinterpret_cast<const char*>(res.binary.data()),
                static_cast<std::streamsize>(res.binary.size()));
      if (!bin) throw std::runtime_error("r4kern --binary: cannot write " + args_.binary);
      fmt::print("one: wrote {} ({} bytes)\n", args_.binary, res.binary.size());
    }
    auto mod = ctx_->load(res.binary);
    {  // the --define's reach quant_act too (R4_QA_LEGACY, session 11)
      auto qreq = compile_request(KernelId::quant_act, Config{}, arch_);
      for (const auto& d : args_.defines) {
        qreq.defines.push_back(d);
        if (d.rfind("R4_QA_THREADS=", 0) == 0)
          qa_threads_ = static_cast<unsigned>(std::stoi(d.substr(14)));
      }
      build_one("quant_act", qreq, "quant_act");
    }
    // The fp8-activation GEMMs (make_acts there needs the quant_act built above).
    if (v->id == KernelId::gemm_w4a8fp8_nt || v->id == KernelId::gemm_mxfp4a8fp8_nt)
      return run_one_fp8(*v, c, *sh, s, mod->kernel(std::string(name(v->id))), res);
    auto& k = mod->kernel(std::string(name(v->id)));
    auto w = make_weights(sh->n, sh->k, 7);
    const int pool = pool_size(weight_bytes(sh->n, sh->k), ctx_->info().llc_bytes);
    const auto cold = cold_copies(w.wq.get(), w.wq.bytes(), w.wsz.get(), w.wsz.bytes(), pool);
    auto a = make_acts(s.m, s.k, 5);
    if (v->id == KernelId::gemm_w4a8_nt) {  // the quantiser (a --define may change it): bit-exact
      std::vector<std::int8_t> q(a.aq.size());
      std::vector<float> sa(a.sa.size());
      ref_quant_act(a.bf16, s.m, s.k, q, sa);
      if (q != a.aq || std::memcmp(sa.data(), a.sa.data(), sa.size() * 4) != 0) {
        fmt::print("one {} M={}: FAIL, quant_act not bit-identical to the CPU reference\n",
                   v->label, s.m);
        return 1;
      }
    }
    gpu::DeviceBuffer out(*ctx_, static_cast<std::size_t>(s.m * s.n) * 2);
    ensure_workspace(workspace_bytes(v->id, c, s));
    // Checked before it is timed (a --define may make a wrong kernel): poisoned output against the
    // GPU reference, the tolerance of the sweep's checks.
    {
      build_one("reference", reference_compile_request(arch_), "ref_gemm_w4");
      if (!result_.get()) result_ = gpu::DeviceBuffer(*ctx_, 16);
      const int vi = static_cast<int>(v - kVariants);
      const auto ref = gpu_ref(w, a, vi, s);
      run_variant(*v, c, s, w, a, out, k);
      const auto [bad, ratio] = check_output(out, ref, s, tolerance(v->id, v->a_bf16, s.k));
      if (bad && lesion()) {
        fmt::print(
            "one {} {} {} M={}: LESION, {} of {} elements wrong by design; timed only to "
            "see what the left-out stage costs\n",
            v->label, to_string(c), sh->name, s.m, bad, s.m * s.n);
      } else if (bad) {
        fmt::print("one {} {} {} M={}: FAIL, {} of {} elements out of tolerance; not timed\n",
                   v->label, to_string(c), sh->name, s.m, bad, s.m * s.n);
        return 1;
      }
      fmt::print("one {} {} {} M={}: checked, max error / tolerance {:.3f}\n", v->label,
                 to_string(c), sh->name, s.m, ratio);
    }
    for (int i = 0; i < 20; ++i) {
      const W4Weights ww = cold.at(i % pool);
      if (v->id == KernelId::gemm_w4a16_nt)
        launch_gemm_w4a16(k, c, arch_, s, v->a_bf16 ? a.d_bf16.get() : a.d_f16.get(), ww, out.get(),
                          workspace_.get(), *stream_);
      else
        launch_gemm_w4a8(k, c, arch_, s, a.aq_for(v->id, c), a.d_sa.get(), ww, out.get(),
                         workspace_.get(), *stream_);
    }
    stream_->synchronize();
    const auto t = time_graph(
        *ctx_, *stream_, pool,
        [&](int e) {
          const W4Weights ww = cold.at(e);
          if (v->id == KernelId::gemm_w4a16_nt)
            launch_gemm_w4a16(k, c, arch_, s, v->a_bf16 ? a.d_bf16.get() : a.d_f16.get(), ww,
                              out.get(), workspace_.get(), *stream_);
          else
            launch_gemm_w4a8(k, c, arch_, s, a.aq_for(v->id, c), a.d_sa.get(), ww, out.get(),
                             workspace_.get(), *stream_);
        },
        TimingSpec{2, 11, 24});
    std::string defs;
    for (const auto& d : args_.defines) defs += " " + d;
    fmt::print("one {} {} {} M={}{}: {:.2f} us ({:.0f} GB/s), {} regs{}\n", v->label, to_string(c),
               sh->name, s.m, defs, t.median_us,
               static_cast<double>(weight_bytes(sh->n, sh->k)) / (t.median_us * 1e3),
               res.resources.count(std::string(name(v->id)))
                   ? res.resources.at(std::string(name(v->id))).registers
                   : -1,
               cluster_note(k, v->id, c, arch_, s));
    if (v->id == KernelId::gemm_w4a8_nt) {
      // The activation quantiser the sweep times with every w4a8 launch: alone, and quant_act +
      // GEMM as a race samples them (one graph node each).
      auto& qk = kernel("quant_act");
      const auto tq = time_graph(
          *ctx_, *stream_, 1,
          [&](int) {
            launch_qa(qk, s, a.d_bf16.get(), a.aq_for(v->id, c), a.d_sa.get(), act_order(v->id, c));
          },
          TimingSpec{2, 11, 24});
      // The pair plain, and as the races time it (kernels::a8_gemm_options: the GEMM under PDL
      // where the device has it).
      const auto pair = [&](const gpu::LaunchOptions& opt) {
        return time_graph(
            *ctx_, *stream_, pool,
            [&](int e) {
              launch_qa(qk, s, a.d_bf16.get(), a.aq_for(v->id, c), a.d_sa.get(),
                        act_order(v->id, c));
              launch_gemm_w4a8(k, c, arch_, s, a.aq_for(v->id, c), a.d_sa.get(), cold.at(e),
                               out.get(), workspace_.get(), *stream_, opt);
            },
            TimingSpec{2, 11, 24});
      };
      const auto tp = pair({}), tpp = pair(a8_gemm_options(arch_, c, s.m));
      fmt::print(
          "one {} {} {} M={}{}: quant_act {:.2f} us, quant_act + gemm {:.2f} us, with PDL {:.2f} "
          "us\n",
          v->label, to_string(c), sh->name, s.m, defs, tq.median_us, tp.median_us, tpp.median_us);
      if (gpu::has_pdl(arch_) && !pdl_allowed(c, s.m)) {
        // A config the launchers never put under PDL (the balanced grid): the pair under PDL
        // anyway (docs/PERF.md "Session 44": it gains where the quantiser's blocks leave the grid
        // its SMs, and the R4_EXP_CARVEOUT experiment of the CUDA backend moves that line).
        gpu::LaunchOptions forced = a8_gemm_options(arch_, c, s.m);
        forced.pdl = true;
        fmt::print("one {} {} {} M={}{}: quant_act + gemm with PDL forced {:.2f} us\n", v->label,
                   to_string(c), sh->name, s.m, defs, pair(forced).median_us);
      }
    }
    print_race_style(*v, c, *sh, s, k, cold, a, defs,
                     v->id == KernelId::gemm_w4a8_nt ? &kernel("quant_act") : nullptr);
    return 0;
  }

  // --one for an fp8-activation GEMM: checked by the sweep's Verifier (its weights, fresh
  // activations through quant_act_fp8, poisoned output, the derived tolerance), then timed over
  // a pool of cold copies of the same weights, alone and with quant_act_fp8 as a race samples it.
  // --define reaches the GEMM, and a second build of quant_act_fp8 that the timings use once it
  // writes the Verifier build's bytes (the check above runs the Verifier's build).
  int run_one_fp8(const Variant& v, const Config& c, const SeedShape& sh, const Shape& s,
                  gpu::Kernel& k, const gpu::CompileResult& res) {
    Verifier ver(*backend_, *ctx_, *stream_);
    ver.set_shape(s.n, s.k, 7);
    ensure_workspace(workspace_bytes(v.id, c, s));
    std::string defs;
    for (const auto& d : args_.defines) defs += " " + d;
    const auto o = ver.check(v.id, k, c, s.m, 11);
    if (!o.pass && lesion()) {
      fmt::print(
          "one {} {} {} M={}{}: LESION, {} elements wrong by design; timed only to see "
          "what the left-out stage costs\n",
          v.label, to_string(c), sh.name, s.m, defs, o.bad);
    } else if (!o.pass) {
      fmt::print("one {} {} {} M={}{}: FAIL, {} elements out of tolerance ({}); not timed\n",
                 v.label, to_string(c), sh.name, s.m, defs, o.bad, o.detail);
      return 1;
    }
    fmt::print("one {} {} {} M={}{}: checked, max error / tolerance {:.3f}\n", v.label,
               to_string(c), sh.name, s.m, defs, o.max_ratio);
    // The same bytes as the int4 layout: N*K/2 of codes, then the scale dwords (weight_bytes; the
    // mx_sm89 layout keeps that count: kernels/nv/gemm_w4_ldg.h).
    const auto wq_bytes = static_cast<std::size_t>(s.n * s.k / 2);
    const auto ws_bytes = static_cast<std::size_t>(weight_bytes(s.n, s.k)) - wq_bytes;
    const auto& w = ver.weights_for(v.id);
    const int pool = pool_size(weight_bytes(s.n, s.k), ctx_->info().llc_bytes);
    const auto cold = cold_copies(w.wq, wq_bytes, w.wsz, ws_bytes, pool);
    auto a = make_acts(s.m, s.k, 5);
    gpu::Kernel* qkp = &ver.quant_act_fp8_kernel();
    launch_quant_act_fp8(*qkp, s, a.d_bf16.get(), a.d_aq.get(), a.d_sa.get(), act_order(v.id, c),
                         *stream_);
    if (!args_.defines.empty()) {
      // An experiment's --define reaches quant_act_fp8 here too (R4_QA_VEC, R4_QA_THREADS: how
      // many registers its blocks take beside a balanced grid under PDL, docs/PERF.md "Session
      // 45"). That build must write the Verifier build's bytes exactly before it is timed.
      auto qreq = quant_act_fp8_compile_request(arch_);
      for (const auto& d : args_.defines) qreq.defines.push_back(d);
      build_one("quant_act_fp8_x", qreq, "quant_act_fp8");
      qkp = &kernel("quant_act_fp8_x");
      const auto mk = static_cast<std::size_t>(s.m * s.k);
      gpu::DeviceBuffer q2(*ctx_, mk), s2(*ctx_, static_cast<std::size_t>(s.m) * 4);
      launch_qa(*qkp, s, a.d_bf16.get(), q2.get(), s2.get(), act_order(v.id, c));
      if (download<std::uint8_t>(q2, mk) != download<std::uint8_t>(a.d_aq, mk) ||
          download<float>(s2, static_cast<std::size_t>(s.m)) !=
              download<float>(a.d_sa, static_cast<std::size_t>(s.m))) {
        fmt::print(
            "one {} {} {} M={}{}: FAIL, quant_act_fp8 under the defines is not "
            "bit-identical to its Verifier build; not timed\n",
            v.label, to_string(c), sh.name, s.m, defs);
        return 1;
      }
    }
    auto& qk = *qkp;
    gpu::DeviceBuffer out(*ctx_, static_cast<std::size_t>(s.m * s.n) * 2);
    const auto gemm = [&](int e, const gpu::LaunchOptions& opt = {}) {
      const W4Weights ww = cold.at(e);
      launch_gemm_a8(v.id, k, c, arch_, s, a.d_aq.get(), a.d_sa.get(), ww, out.get(),
                     workspace_.get(), *stream_, opt);
    };
    for (int i = 0; i < 20; ++i) gemm(i % pool);
    stream_->synchronize();
    const auto t = time_graph(
        *ctx_, *stream_, pool, [&](int e) { gemm(e); }, TimingSpec{2, 11, 24});
    // The pair plain, and as the races time it (kernels::a8_gemm_options).
    const auto pair = [&](const gpu::LaunchOptions& opt) {
      return time_graph(
          *ctx_, *stream_, pool,
          [&](int e) {
            launch_qa(qk, s, a.d_bf16.get(), a.d_aq.get(), a.d_sa.get(), act_order(v.id, c));
            gemm(e, opt);
          },
          TimingSpec{2, 11, 24});
    };
    const auto tp = pair({}), tpp = pair(a8_gemm_options(arch_, c, s.m));
    const auto kname = std::string(name(v.id));
    fmt::print(
        "one {} {} {} M={}{}: {:.2f} us ({:.0f} GB/s), {} regs; quant_act_fp8 + gemm "
        "{:.2f} us, with PDL {:.2f} us{}\n",
        v.label, to_string(c), sh.name, s.m, defs, t.median_us,
        static_cast<double>(weight_bytes(s.n, s.k)) / (t.median_us * 1e3),
        res.resources.count(kname) ? res.resources.at(kname).registers : -1, tp.median_us,
        tpp.median_us, cluster_note(k, v.id, c, arch_, s));
    print_race_style(v, c, sh, s, k, cold, a, defs, &qk);
    return 0;
  }

 private:
  static std::string key(const Variant& v, const Config& c, bool broken) {
    return fmt::format("{}{}{}", v.label, to_string(c), broken ? "broken" : "");
  }
  gpu::Kernel& kernel(const std::string& k) { return *built_.at(k).kernel; }

  // quant_act or quant_act_fp8 (the same arguments and grid: kernels/family.cpp
  // launch_quant_act_fp8) at the block size it was compiled for: 256 (launch_dims), or an
  // experiment's --define R4_QA_THREADS=N (run_one).
  void launch_qa(gpu::Kernel& k, const Shape& s, gpu::DevicePtr a, gpu::DevicePtr aq,
                 gpu::DevicePtr sa, ActOrder order) {
    if (qa_threads_ == 256) return launch_quant_act(k, s, a, aq, sa, order, *stream_);
    int m = static_cast<int>(s.m), kk = static_cast<int>(s.k), ord = static_cast<int>(order);
    void* args[] = {&a, &aq, &sa, &m, &kk, &ord};
    k.launch({static_cast<unsigned>(m), 1, 1}, {qa_threads_, 1, 1}, 0, *stream_, args);
  }

  // `pool` copies of one packed weight (codes, scales), for timing over more bytes than the LLC
  // holds; at(e) is copy e.
  struct ColdCopies {
    std::vector<gpu::DeviceBuffer> wq, wsz;
    [[nodiscard]] W4Weights at(int e) const {
      return {wq[static_cast<std::size_t>(e)].get(), wsz[static_cast<std::size_t>(e)].get()};
    }
  };
  ColdCopies cold_copies(gpu::DevicePtr wq, std::size_t wq_bytes, gpu::DevicePtr wsz,
                         std::size_t wsz_bytes, int pool) {
    ColdCopies c;
    for (int i = 0; i < pool; ++i) {
      c.wq.emplace_back(*ctx_, wq_bytes);
      c.wsz.emplace_back(*ctx_, wsz_bytes);
      ctx_->copy_device(c.wq.back().get(), wq, wq_bytes, *stream_);
      ctx_->copy_device(c.wsz.back().get(), wsz, wsz_bytes, *stream_);
    }
    return c;
  }

  template <class T>
  gpu::DeviceBuffer upload(const std::vector<T>& v) {
    gpu::DeviceBuffer b(*ctx_, std::max<std::size_t>(16, v.size() * sizeof(T)));
    ctx_->copy_to_device(b.get(), v.data(), v.size() * sizeof(T));
    return b;
  }
  template <class T>
  std::vector<T> download(const gpu::DeviceBuffer& b, std::size_t n) {
    std::vector<T> v(n);
    stream_->synchronize();
    ctx_->copy_to_host(v.data(), b.get(), n * sizeof(T));
    return v;
  }

  struct Weights {
    std::vector<std::int8_t> q;
    std::vector<float> scale;  // f16-rounded
    gpu::DeviceBuffer wq, wsz;
  };
  Weights make_weights(std::int64_t n, std::int64_t k, std::uint32_t seed) {
    Weights w;
    std::mt19937 rng(seed);
    w.q.resize(static_cast<std::size_t>(n * k));
    for (auto& x : w.q) x = static_cast<std::int8_t>(static_cast<int>(rng() % 16) - 8);
    std::vector<float> sc(static_cast<std::size_t>(n * k / kGroup));
    std::uniform_real_distribution<float> u(0.005f, 0.03f);
    for (auto& s : sc) s = u(rng);
    const auto p = quant::pack_sm80(w.q, sc, n, k, kGroup);
    w.scale.resize(sc.size());
    for (std::size_t i = 0; i < sc.size(); ++i) w.scale[i] = half_to_float(float_to_half(sc[i]));
    w.wq = upload(p.wq);
    w.wsz = upload(p.wsz);
    return w;
  }

  struct Acts {
    std::vector<std::uint16_t> f16, bf16;
    std::vector<std::int8_t> aq;
    std::vector<float> sa;
    gpu::DeviceBuffer d_f16, d_bf16, d_aq, d_sa;
    gpu::DeviceBuffer d_aq_sm90a;  // d_aq in the sm90a order (arches with that generation)
    // The int8 activations the GEMM config reads (kernels::act_order).
    [[nodiscard]] gpu::DevicePtr aq_for(KernelId id, const Config& c) const {
      return act_order(id, c) == ActOrder::sm90a ? d_aq_sm90a.get() : d_aq.get();
    }
  };
  Acts make_acts(std::int64_t m, std::int64_t k, std::uint32_t seed) {
    Acts a;
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    a.f16.resize(static_cast<std::size_t>(m * k));
    a.bf16.resize(a.f16.size());
    for (std::size_t i = 0; i < a.f16.size(); ++i) {
      const float x = nd(rng);
      a.f16[i] = float_to_half(x);
      a.bf16[i] = float_to_bf16(x);
    }
    a.d_f16 = upload(a.f16);
    a.d_bf16 = upload(a.bf16);
    a.d_aq = gpu::DeviceBuffer(*ctx_, static_cast<std::size_t>(m * k));
    a.d_sa = gpu::DeviceBuffer(*ctx_, static_cast<std::size_t>(m) * 4);
    launch_qa(kernel("quant_act"), {0, k, m}, a.d_bf16.get(), a.d_aq.get(), a.d_sa.get(),
              ActOrder::natural);
    if (gpu::has_wgmma(arch_)) {
      a.d_aq_sm90a = gpu::DeviceBuffer(*ctx_, static_cast<std::size_t>(m * k));
      launch_qa(kernel("quant_act"), {0, k, m}, a.d_bf16.get(), a.d_aq_sm90a.get(), a.d_sa.get(),
                ActOrder::sm90a);
    }
    a.aq = download<std::int8_t>(a.d_aq, static_cast<std::size_t>(m * k));
    a.sa = download<float>(a.d_sa, static_cast<std::size_t>(m));
    return a;
  }

  // run_one's lines read one activation buffer and write one output, which stay in L2 across the
  // pool's launches. A race pools them with the weights (tuner/worker/device_session.cpp: one
  // input, quantised input and output per copy; ../shared/DESIGN.md "Measurement"), so there the
  // activations come from DRAM too. That costs little beside a GEMM's own cold weight loads, but a
  // w4a8 pair's quantiser waits for its input before the GEMM can read anything: the sweep's pair
  // times ran ~0.8 us above r4kern's (docs/PERF.md "Session 21"). This line times the config
  // exactly as a race does (a one-byte kind: its quantiser, quant_act or quant_act_fp8, + GEMM
  // under kernels::a8_gemm_options; the fp8 kinds since session 22), so that an
  // A/B run predicts the sweep.
  void print_race_style(const Variant& v, const Config& c, const SeedShape& sh, const Shape& s,
                        gpu::Kernel& k, const ColdCopies& cold, const Acts& a,
                        const std::string& defs, gpu::Kernel* qk) {  // qk: the quantiser, or null
    const auto n = cold.wq.size();
    const bool a8 = v.id != KernelId::gemm_w4a16_nt;  // a one-byte kind: quantiser + GEMM
    const bool fp8 = v.id == KernelId::gemm_w4a8fp8_nt || v.id == KernelId::gemm_mxfp4a8fp8_nt;
    const auto in_bytes = static_cast<std::size_t>(s.m * s.k) * 2;  // bf16 or f16
    const gpu::DevicePtr src = a8 || v.a_bf16 ? a.d_bf16.get() : a.d_f16.get();
    std::vector<gpu::DeviceBuffer> in, q, sa, out;
    for (std::size_t i = 0; i < n; ++i) {
      in.emplace_back(*ctx_, in_bytes);
      ctx_->copy_device(in.back().get(), src, in_bytes, *stream_);
      q.emplace_back(*ctx_, static_cast<std::size_t>(s.m * s.k));
      sa.emplace_back(*ctx_, static_cast<std::size_t>(s.m) * 4);
      out.emplace_back(*ctx_, static_cast<std::size_t>(s.m * s.n) * 2);
    }
    stream_->synchronize();
    const auto race = [&](const gpu::LaunchOptions& opt) {
      return time_graph(
          *ctx_, *stream_, static_cast<int>(n),
          [&](int e) {
            const auto u = static_cast<std::size_t>(e);
            if (!a8) {
              launch_gemm_w4a16(k, c, arch_, s, in[u].get(), cold.at(e), out[u].get(),
                                workspace_.get(), *stream_);
              return;
            }
            launch_qa(*qk, s, in[u].get(), q[u].get(), sa[u].get(), act_order(v.id, c));
            launch_gemm_a8(v.id, k, c, arch_, s, q[u].get(), sa[u].get(), cold.at(e), out[u].get(),
                           workspace_.get(), *stream_, opt);
          },
          TimingSpec{2, 11, 24});
    };
    const auto t = race(a8_gemm_options(arch_, c, s.m));
    fmt::print(
        "one {} {} {} M={}{}: as a race times it (activations and outputs pooled{}): {:.2f} us\n",
        v.label, to_string(c), sh.name, s.m, defs,
        a8 ? fp8 ? ", quant_act_fp8 + gemm under PDL" : ", quant_act + gemm under PDL" : "",
        t.median_us);
    if (a8 && gpu::has_pdl(arch_) && !pdl_allowed(c, s.m)) {
      // A balanced grid, which the launchers keep off PDL (kernels/config.hpp pdl_allowed): the
      // same pooled pair with its GEMM under PDL anyway (docs/PERF.md "Session 44").
      gpu::LaunchOptions forced = a8_gemm_options(arch_, c, s.m);
      forced.pdl = true;
      fmt::print("one {} {} {} M={}{}: as a race times it, under PDL forced: {:.2f} us\n", v.label,
                 to_string(c), sh.name, s.m, defs, race(forced).median_us);
    }
  }

  int check_quant_act() {
    int bad = 0;
    for (std::int64_t k : {128, 2048, 5120, 8704})
      for (std::int64_t m : kCheckMs) {
        auto a = make_acts(m, k, static_cast<std::uint32_t>(17 * m + k));
        std::vector<std::int8_t> q(a.aq.size());
        std::vector<float> sa(a.sa.size());
        ref_quant_act(a.bf16, m, k, q, sa);
        if (q != a.aq || std::memcmp(sa.data(), a.sa.data(), sa.size() * 4) != 0) {
          fmt::print("FAIL quant_act M={} K={}: not bit-identical to the CPU reference\n", m, k);
          ++bad;
        }
      }
    fmt::print("check quant_act: {} of 24 (M, K) bit-identical to the CPU reference\n", 24 - bad);
    return bad;
  }

  struct RefBufs {
    gpu::DeviceBuffer ref, norm;
  };
  RefBufs gpu_ref(const Weights& w, const Acts& a, int a_kind, const Shape& s) {
    RefBufs r{gpu::DeviceBuffer(*ctx_, static_cast<std::size_t>(s.m * s.n) * 4),
              gpu::DeviceBuffer(*ctx_, static_cast<std::size_t>(s.m * s.n) * 4)};
    gpu::DevicePtr A = a_kind == 0 ? a.d_f16.get() : a_kind == 1 ? a.d_bf16.get() : a.d_aq.get();
    gpu::DevicePtr sa = a.d_sa.get(), wq = w.wq.get(), wsz = w.wsz.get(), rp = r.ref.get(),
                   np = r.norm.get();
    int kind = a_kind, M = static_cast<int>(s.m), N = static_cast<int>(s.n),
        K = static_cast<int>(s.k);
    void* args[] = {&A, &kind, &sa, &wq, &wsz, &rp, &np, &M, &N, &K};
    const auto total = static_cast<unsigned>(s.m * s.n);
    kernel("reference").launch({(total + 255) / 256, 1, 1}, {256, 1, 1}, 0, *stream_, args);
    return r;
  }

  // result: (failures, max err/tol)
  std::pair<std::uint32_t, float> check_output(const gpu::DeviceBuffer& out, const RefBufs& r,
                                               const Shape& s, Tolerance tol) {
    ctx_->memset8(result_.get(), 0, 16, *stream_);
    gpu::DevicePtr o = out.get(), rp = r.ref.get(), np = r.norm.get(), res = result_.get();
    std::int64_t count = s.m * s.n;
    void* args[] = {&o, &rp, &np, &count, &tol.rel, &tol.abs_coef, &res};
    auto& chk = check_module_kernel();
    chk.launch({static_cast<unsigned>((count + 255) / 256), 1, 1}, {256, 1, 1}, 0, *stream_, args);
    const auto v = download<std::uint32_t>(result_, 3);
    float ratio;
    std::memcpy(&ratio, &v[1], 4);
    return {v[0], ratio};
  }
  gpu::Kernel& check_module_kernel() { return built_.at("reference").module->kernel("check_bf16"); }

  void run_variant(const Variant& v, const Config& c, const Shape& s, const Weights& w,
                   const Acts& a, const gpu::DeviceBuffer& out, gpu::Kernel& k) {
    ctx_->memset8(out.get(), 0xFF, static_cast<std::size_t>(s.m * s.n) * 2, *stream_);  // NaN
    const W4Weights ww{w.wq.get(), w.wsz.get()};
    if (v.id == KernelId::gemm_w4a16_nt)
      launch_gemm_w4a16(k, c, arch_, s, v.a_bf16 ? a.d_bf16.get() : a.d_f16.get(), ww, out.get(),
                        workspace_.get(), *stream_);
    else
      launch_gemm_w4a8(k, c, arch_, s, a.aq_for(v.id, c), a.d_sa.get(), ww, out.get(),
                       workspace_.get(), *stream_);
  }

  void ensure_workspace(std::size_t bytes) {
    if (workspace_.bytes() >= bytes) return;
    workspace_ = gpu::DeviceBuffer(*ctx_, bytes);
    ctx_->memset8(workspace_.get(), 0, bytes, *stream_);
  }

  int check_shape(const SeedShape& sh, std::map<std::string, std::pair<long, long>>& counts) {
    int failures = 0;
    const auto t0 = Clock::now();
    auto w = make_weights(sh.n, sh.k, static_cast<std::uint32_t>(sh.n * 31 + sh.k));
    if (!result_.get()) result_ = gpu::DeviceBuffer(*ctx_, 16);
    for (std::int64_t m : kCheckMs) {
      const Shape s{sh.n, sh.k, m};
      auto a = make_acts(m, sh.k, static_cast<std::uint32_t>(m * 7 + sh.n));
      gpu::DeviceBuffer out(*ctx_, static_cast<std::size_t>(m * sh.n) * 2);
      gpu::DeviceBuffer out2(*ctx_, static_cast<std::size_t>(m * sh.n) * 2);
      RefBufs refs[3] = {gpu_ref(w, a, 0, s), gpu_ref(w, a, 1, s), gpu_ref(w, a, 2, s)};
      // Validate the GPU reference against the CPU one where the CPU one is cheap.
      if (sh.n * sh.k * m <= 120'000'000) failures += check_gpu_ref(w, a, s, refs);
      for (int vi = 0; vi < 3; ++vi) {
        const auto& v = kVariants[vi];
        const auto tol = tolerance(v.id, v.a_bf16, sh.k);
        for (const auto& c : config_space(v.id, arch_, s)) {
          const auto it = built_.find(key(v, c, false));
          if (it == built_.end()) continue;  // --quick
          ensure_workspace(workspace_bytes(v.id, c, s));
          run_variant(v, c, s, w, a, out, *it->second.kernel);
          const auto [bad, ratio] = check_output(out, refs[vi], s, tol);
          auto& pf = counts[v.label];
          if (bad) {
            ++pf.second;
            ++failures;
            if (pf.second <= 20)
              fmt::print("FAIL {} {} N={} K={} M={}: {} elements out of tolerance\n", v.label,
                         to_string(c), sh.n, sh.k, m, bad);
          } else {
            ++pf.first;
            max_ratio_[v.label] = std::max(max_ratio_[v.label], ratio);
          }
          // Determinism: a second run gives identical bits (split-K included).
          if (m == 33 || (m == 16 && c.sk > 1)) {
            run_variant(v, c, s, w, a, out2, *it->second.kernel);
            const auto h1 = download<std::uint16_t>(out, static_cast<std::size_t>(m * sh.n));
            const auto h2 = download<std::uint16_t>(out2, static_cast<std::size_t>(m * sh.n));
            if (h1 != h2) {
              ++failures;
              fmt::print("FAIL {} {} N={} K={} M={}: two runs differ\n", v.label, to_string(c),
                         sh.n, sh.k, m);
            }
            ++determinism_checked_;
          }
        }
      }
    }
    fmt::print("checked {} (N={}, K={}) in {:.1f} s\n", sh.name, sh.n, sh.k, since(t0));
    return failures;
  }

  int check_gpu_ref(const Weights& w, const Acts& a, const Shape& s, RefBufs (&refs)[3]) {
    int bad = 0;
    const auto mn = static_cast<std::size_t>(s.m * s.n);
    std::vector<double> c(mn), nrm(mn);
    for (int vi = 0; vi < 3; ++vi) {
      if (vi < 2)
        ref_gemm_w4a16(vi ? a.bf16 : a.f16, vi == 1, w.q, w.scale, s, {c, nrm});
      else
        ref_gemm_w4a8(a.aq, a.sa, w.q, w.scale, s, {c, nrm});
      const auto g = download<float>(refs[vi].ref, mn);
      for (std::size_t i = 0; i < mn; ++i)
        if (!(std::fabs(g[i] - c[i]) <= 1e-6 * (std::fabs(c[i]) + nrm[i]))) {
          ++bad;
          fmt::print("FAIL GPU reference {} N={} K={} M={} at {}: {} vs CPU {}\n",
                     kVariants[vi].label, s.n, s.k, s.m, i, g[i], c[i]);
          break;
        }
    }
    ++gpu_ref_checked_;
    return bad;
  }

  int check_broken() {
    // A deliberately wrong kernel (the next group's scale) must fail the same check.
    int not_caught = 0;
    const Shape s{3072, 5120, 8};
    auto w = make_weights(s.n, s.k, 99);
    auto a = make_acts(s.m, s.k, 98);
    gpu::DeviceBuffer out(*ctx_, static_cast<std::size_t>(s.m * s.n) * 2);
    for (int vi = 0; vi < 3; ++vi) {
      const auto& v = kVariants[vi];
      const Config bc{4, 2, 1, 1, 1};
      ensure_workspace(workspace_bytes(v.id, bc, s));
      auto ref = gpu_ref(w, a, vi, s);
      run_variant(v, bc, s, w, a, out, kernel(key(v, bc, true)));
      const auto [bad, ratio] = check_output(out, ref, s, tolerance(v.id, v.a_bf16, s.k));
      fmt::print(
          "broken variant {} (wrong scale index): {} of {} elements out of tolerance -> {}\n",
          v.label, bad, s.m * s.n, bad ? "caught" : "NOT CAUGHT");
      if (!bad) ++not_caught;
    }
    fmt::print(
        "GPU reference validated against the CPU reference on {} (shape, M); {} "
        "determinism re-runs\n",
        gpu_ref_checked_, determinism_checked_);
    for (const auto& [v, r] : max_ratio_)
      fmt::print("max err/tol over passing runs, {}: {:.3f}\n", v, r);
    return not_caught;
  }

  Args args_;
  std::unique_ptr<gpu::Backend> backend_;
  std::unique_ptr<gpu::Context> ctx_;
  std::unique_ptr<gpu::Stream> stream_;
  gpu::Arch arch_;
  std::map<std::string, Built> built_;
  unsigned qa_threads_ = 256;
  gpu::DeviceBuffer workspace_, result_;
  std::map<std::string, float> max_ratio_;
  int gpu_ref_checked_ = 0;
  long determinism_checked_ = 0;
  friend void time_sweep(Driver&);
};

// ------------------------------------------------------------------ timing sweep
void Driver::time_all() {
  const auto t0 = Clock::now();
  const auto& info = ctx_->info();
  const std::int64_t llc = info.llc_bytes;
  std::ofstream csv(args_.out + "/kern_times.csv");
  csv << "row,variant,N,K,M,config,us,gbps,samples\n";
  // Streaming-read ceiling: a 2 GiB buffer, best of a few grid shapes.
  double ceiling = 0;
  {
    const std::size_t bytes = 2ull << 30;
    gpu::DeviceBuffer buf(*ctx_, bytes), sink(*ctx_, 16);
    ctx_->memset8(buf.get(), 0x5A, bytes, *stream_);
    auto& k = built_.at("reference").module->kernel("stream_read");
    for (unsigned per_sm : {2u, 4u, 8u}) {
      gpu::DevicePtr p = buf.get(), sp = sink.get();
      std::int64_t n16 = static_cast<std::int64_t>(bytes / 16);
      void* kargs[] = {&p, &n16, &sp};
      const auto t = time_graph(
          *ctx_, *stream_, 1,
          [&](int) {
            k.launch({static_cast<unsigned>(info.multiprocessors) * per_sm, 1, 1}, {512, 1, 1}, 0,
                     *stream_, kargs);
          },
          TimingSpec{2, 7, 5});
      const double gbps = static_cast<double>(bytes) / (t.median_us * 1e3);
      csv << fmt::format("ceiling,stream_read,0,0,0,{}x512,{:.3f},{:.1f},\n", per_sm, t.median_us,
                         gbps);
      ceiling = std::max(ceiling, gbps);
    }
    fmt::print("streaming-read ceiling: {:.0f} GB/s (2 GiB buffer)\n", ceiling);
  }
  auto base_bf16 = make_cublaslt_baseline(BaselineKind::bf16, *ctx_, *stream_);
  auto base_fp8 = make_cublaslt_baseline(BaselineKind::fp8_block, *ctx_, *stream_);
  struct Row {
    std::string shape;
    std::int64_t n, k, m;
    std::string cfg16, cfg8;
    double w4a16 = 0, w4a8 = 0, qa = 0, bf16 = 0, fp8 = 0, floor = 0;
    std::string note;
  };
  std::vector<Row> rows;
  const TimingSpec coarse{1, 2, 24}, fine{2, 11, 24};
  // Each (shape, M, kernel) gets an equal share of the budget; configs are visited in a fixed
  // shuffled order so that a cut-off sample is not biased towards the first knob values.
  const double slot_s = args_.time_budget_s / (std::size(kSeedShapes) * std::size(kTimeMs) * 2);
  bool partial = false;
  auto floor_mod = [&] {
    auto r = backend_->compile(floor_compile_request(arch_));
    if (!r.ok) throw gpu::Error("read_floor.cu does not compile: " + r.log);
    return ctx_->load(r.binary);
  }();
  for (const auto& sh : kSeedShapes) {
    if (!shape_wanted(args_, sh.name)) continue;
    auto w = make_weights(sh.n, sh.k, 7);
    const auto wbytes = weight_bytes(sh.n, sh.k);
    const int pool = pool_size(wbytes, llc);
    const auto cold = cold_copies(w.wq.get(), w.wq.bytes(), w.wsz.get(), w.wsz.bytes(), pool);
    std::vector<W4Weights> fpool;
    for (int i = 0; i < pool; ++i) fpool.push_back(cold.at(i));
    const double floor_us = time_floors(*floor_mod, sh, fpool, csv);
    for (std::int64_t m : kTimeMs) {
      const Shape s{sh.n, sh.k, m};
      Row row{sh.name, sh.n, sh.k, m, "", "", 0, 0, 0, 0, 0, floor_us, ""};
      auto a = make_acts(m, sh.k, 5);
      gpu::DeviceBuffer out(*ctx_, static_cast<std::size_t>(m * sh.n) * 2);
      for (int vi : {0, 2}) {
        const auto& v = kVariants[vi];
        struct Cand {
          Config c;
          double us;
        };
        std::vector<Cand> cands;
        auto measure = [&](const Config& c, const TimingSpec& spec) {
          ensure_workspace(workspace_bytes(v.id, c, s));
          auto& k = kernel(key(v, c, false));
          return time_graph(
              *ctx_, *stream_, pool,
              [&](int e) {
                const W4Weights ww = cold.at(e);
                if (v.id == KernelId::gemm_w4a16_nt)
                  launch_gemm_w4a16(k, c, arch_, s, a.d_f16.get(), ww, out.get(), workspace_.get(),
                                    *stream_);
                else
                  launch_gemm_w4a8(k, c, arch_, s, a.aq_for(v.id, c), a.d_sa.get(), ww, out.get(),
                                   workspace_.get(), *stream_);
              },
              spec);
        };
        std::vector<Config> space;
        for (const auto& c : config_space(v.id, arch_, s))
          if (built_.count(key(v, c, false))) space.push_back(c);
        std::shuffle(space.begin(), space.end(), std::mt19937(42));
        const auto slot0 = Clock::now();
        std::size_t timed = 0;
        for (const auto& c : space) {
          if (built_.find(key(v, c, false)) == built_.end()) continue;
          if (since(slot0) > slot_s) {
            partial = true;
            break;
          }
          ++timed;
          const auto t = measure(c, coarse);
          cands.push_back({c, t.median_us});
          csv << fmt::format("coarse,{},{},{},{},\"{}\",{:.3f},{:.1f},\n", v.label, sh.n, sh.k, m,
                             to_string(c), t.median_us,
                             static_cast<double>(wbytes) / (t.median_us * 1e3));
        }
        csv << fmt::format("coverage,{},{},{},{},,{},{},\n", v.label, sh.n, sh.k, m, timed,
                           space.size());
        if (timed < space.size())
          row.note += fmt::format("{}: {} of {} configs timed; ", v.label, timed, space.size());
        std::sort(cands.begin(), cands.end(),
                  [](const Cand& x, const Cand& y) { return x.us < y.us; });
        double best = 1e30;
        Config best_c{};
        for (std::size_t i = 0; i < std::min<std::size_t>(4, cands.size()); ++i) {
          const auto t = measure(cands[i].c, fine);
          std::string samples;
          for (double x : t.samples_us) samples += fmt::format("{:.3f};", x);
          csv << fmt::format("fine,{},{},{},{},\"{}\",{:.3f},{:.1f},{}\n", v.label, sh.n, sh.k, m,
                             to_string(cands[i].c), t.median_us,
                             static_cast<double>(wbytes) / (t.median_us * 1e3), samples);
          if (t.median_us < best) {
            best = t.median_us;
            best_c = cands[i].c;
          }
        }
        (vi == 0 ? row.w4a16 : row.w4a8) = best;
        (vi == 0 ? row.cfg16 : row.cfg8) = to_string(best_c);
      }
      {  // quant_act, activations only (no weight pool needed)
        auto& k = kernel("quant_act");
        const auto t = time_graph(
            *ctx_, *stream_, 1,
            [&](int) {
              launch_quant_act(k, s, a.d_bf16.get(), a.d_aq.get(), a.d_sa.get(), ActOrder::natural,
                               *stream_);
            },
            fine);
        row.qa = t.median_us;
        csv << fmt::format("fine,quant_act,{},{},{},,{:.3f},,\n", sh.n, sh.k, m, t.median_us);
      }
      for (auto* b : {base_bf16.get(), base_fp8.get()}) {
        const auto r = b->time_call(s, fine);
        (b == base_bf16.get() ? row.bf16 : row.fp8) = r.us.value_or(0);
        if (!r.us || !r.note.empty()) row.note += fmt::format("{}: {}; ", b->name(), r.note);
        csv << fmt::format("fine,{},{},{},{},\"{}\",{:.3f},,\n", b->name(), sh.n, sh.k, m, r.note,
                           r.us.value_or(0));
      }
      rows.push_back(row);
      fmt::print("timed {} M={} ({:.0f} s)\n", sh.name, m, since(t0));
    }
  }
  fmt::print(
      "\n{:<12} {:>5} {:>6} {:>3} | {:>8} {:>6} {:>4} {:<30} | {:>8} {:>6} {:>4} {:<30} | {:>6} | "
      "{:>8} {:>8} | {:>7} {:>6} {:>6}\n",
      "shape", "N", "K", "M", "w4a16us", "GB/s", "%", "config", "w4a8us", "GB/s", "%", "config",
      "qa_us", "bf16_us", "fp8b_us", "floorus", "xfl16", "xfl8");
  for (const auto& r : rows) {
    const double wb = static_cast<double>(weight_bytes(r.n, r.k));
    fmt::print(
        "{:<12} {:>5} {:>6} {:>3} | {:>8.2f} {:>6.0f} {:>4.0f} {:<30} | {:>8.2f} {:>6.0f} {:>4.0f} "
        "{:<30} | {:>6.2f} | {:>8.2f} {:>8.2f} | {:>7.2f} {:>6.2f} {:>6.2f}\n",
        r.shape, r.n, r.k, r.m, r.w4a16, wb / (r.w4a16 * 1e3), 100 * wb / (r.w4a16 * 1e3) / ceiling,
        r.cfg16, r.w4a8, wb / (r.w4a8 * 1e3), 100 * wb / (r.w4a8 * 1e3) / ceiling, r.cfg8, r.qa,
        r.bf16, r.fp8, r.floor, r.w4a16 / r.floor, (r.w4a8 + r.qa) / r.floor);
    if (!r.note.empty()) csv << fmt::format("note,,{},{},{},\"{}\",,,\n", r.n, r.k, r.m, r.note);
  }
  fmt::print("timing sweep {} in {:.0f} s; ceiling {:.0f} GB/s\n",
             partial ? "PARTIAL (budget)" : "complete", since(t0), ceiling);
}

double Driver::time_floors(gpu::Module& mod, const SeedShape& sh,
                           const std::vector<W4Weights>& fpool, std::ostream& csv) {
  const auto wbytes = static_cast<double>(weight_bytes(sh.n, sh.k));
  double two_loop = 0;
  for (const char* name : {"r4_read_floor", "r4_read_floor_fused", "r4_read_floor_chunks4",
                           "r4_read_floor_chunks16"}) {
    auto rf = measure::measure_read_floor(*ctx_, *stream_, mod.kernel(name), fpool, sh.n, sh.k, 9);
    std::sort(rf.samples_us.begin(), rf.samples_us.end());
    const double us = rf.samples_us[rf.samples_us.size() / 2];
    if (two_loop == 0) two_loop = us;
    fmt::print("{} {} {:.2f} us ({:.0f} GB/s, {:.2f}x the two-loop floor): {}\n", name, sh.name, us,
               wbytes / (us * 1e3), us / two_loop, rf.detail);
    csv << fmt::format("floor,{},{},{},0,\"{}\",{:.3f},{:.1f},\n", name + 3, sh.n, sh.k, rf.detail,
                       us, wbytes / (us * 1e3));
  }
  return two_loop;
}

int Driver::floors_only() {
  auto r = backend_->compile(floor_compile_request(arch_));
  if (!r.ok) throw gpu::Error("read_floor.cu does not compile: " + r.log);
  auto mod = ctx_->load(r.binary);
  std::ofstream csv(args_.out + "/kern_floors.csv");
  csv << "row,variant,N,K,M,config,us,gbps,samples\n";
  // The launch floor as the sweep measures it (256 launches per replay), then 1024 per replay,
  // and again after the read floors have kept the GPU busy. On the H200 all four read 0.50-0.51 us
  // (the floors document's value); the sweep's 0.69 us came from its worker's context
  // (docs/PERF.md, session 6).
  const auto launch_floor = [&](const char* when, int launches) {
    const auto lf =
        measure::measure_launch_floor(*ctx_, *stream_, mod->kernel("r4_empty"), 15, launches);
    std::vector<double> l = lf.samples_us;
    std::sort(l.begin(), l.end());
    fmt::print("launch floor {:.3f} us ({}; min {:.3f}): {}\n", l[l.size() / 2], when, l.front(),
               lf.detail);
  };
  launch_floor("first, as the sweep", 256);
  launch_floor("first, 1024 per replay", 1024);
  for (const auto& sh : kSeedShapes) {
    if (!shape_wanted(args_, sh.name)) continue;
    auto w = make_weights(sh.n, sh.k, 7);
    const int pool = pool_size(weight_bytes(sh.n, sh.k), ctx_->info().llc_bytes);
    std::vector<gpu::DeviceBuffer> bufs;
    bufs.reserve(static_cast<std::size_t>(2 * pool));  // the references below stay valid
    std::vector<W4Weights> fpool;
    for (int i = 0; i < pool; ++i) {
      auto& q = bufs.emplace_back(*ctx_, w.wq.bytes());
      ctx_->copy_device(q.get(), w.wq.get(), w.wq.bytes(), *stream_);
      auto& z = bufs.emplace_back(*ctx_, w.wsz.bytes());
      ctx_->copy_device(z.get(), w.wsz.get(), w.wsz.bytes(), *stream_);
      fpool.push_back({q.get(), z.get()});
    }
    time_floors(*mod, sh, fpool, csv);
  }
  launch_floor("after the read floors", 256);
  launch_floor("after the read floors, 1024 per replay", 1024);
  return 0;
}

}  // namespace
}  // namespace r4::kernels::tool

int main(int argc, char** argv) {
  using namespace r4::kernels::tool;
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--check")
      a.check = true;
    else if (s == "--time")
      a.time = true;
    else if (s == "--quick")
      a.quick = true;
    else if (s == "--floors")
      a.floors = true;
    else if (s == "--out" && i + 1 < argc)
      a.out = argv[++i];
    else if (s == "--time-budget" && i + 1 < argc)
      a.time_budget_s = std::stod(argv[++i]);
    else if (s == "--gen" && i + 1 < argc)
      a.gen = std::stoi(argv[++i]);
    else if (s == "--stride" && i + 1 < argc)
      a.stride = std::max(1, std::stoi(argv[++i]));
    else if (s == "--shapes" && i + 1 < argc)
      a.shapes = argv[++i];
    else if (s == "--one" && i + 1 < argc)
      a.one = argv[++i];
    else if (s == "--m" && i + 1 < argc)
      a.one_m = std::stoi(argv[++i]);
    else if (s == "--define" && i + 1 < argc)
      a.defines.push_back(argv[++i]);
    else if (s == "--binary" && i + 1 < argc)
      a.binary = argv[++i];
    else {
      fmt::print(stderr,
                 "usage: r4kern [--check] [--time] [--floors] [--quick] [--out DIR] [--time-budget "
                 "S] [--gen "
                 "0|1] [--stride N] [--shapes a,b,...] [--one V:TUPLE --m M [--define D]... "
                 "[--binary PATH]]\n");
      return 2;
    }
  }
  if (std::string bad; !a.shapes.empty() && !shapes_known(a.shapes, bad)) {
    std::string names;
    for (const auto& x : kSeedShapes) names += std::string(names.empty() ? "" : ", ") + x.name;
    fmt::print(stderr, "r4kern: --shapes: unknown shape '{}' (seed shapes: {}; or NxK)\n", bad,
               names);
    return 2;
  }
  try {
    Driver d(a);
    if (!a.one.empty()) return d.run_one();
    if (a.floors) return d.floors_only();
    d.compile_all();
    int failures = 0;
    if (a.check) failures = d.check();
    if (a.time) d.time_all();
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "r4kern: {}\n", e.what());
    return 3;
  }
}
