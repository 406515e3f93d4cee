#include "tuner/worker/device_session.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <set>

#include <fmt/core.h>

#include "kernels/baseline.hpp"
#include "kernels/family.hpp"
#include "kernels/floors.hpp"
#include "kernels/verify.hpp"
#include "tuner/gpu/device_json.hpp"
#include "tuner/measure/ceiling.hpp"
#include "tuner/measure/floors.hpp"
#include "tuner/measure/graph_timer.hpp"
#include "tuner/measure/pool.hpp"
#include "tuner/measure/step_chain.hpp"

namespace r4::worker {

namespace {

using nlohmann::json;

// [WV, SK, MB, NPW, NT, GEN, ST] (tune/sweep_context.hpp config_json); a 5-array is generation 0.
kernels::Config config_of(const json& j) {
  const auto& a = j.at("config");
  if (a.size() != 5 && a.size() != 7)
    throw std::invalid_argument("config must be [WV, SK, MB, NPW, NT(, GEN, ST)], not " + a.dump());
  kernels::Config c{a.at(0).get<int>(), a.at(1).get<int>(), a.at(2).get<int>(), a.at(3).get<int>(),
                    a.at(4).get<int>()};
  if (a.size() == 7) {
    c.gen = a.at(5).get<int>();
    c.st = a.at(6).get<int>();
  }
  return c;
}

kernels::KernelId kernel_of(const json& j) {
  const auto name = j.at("kernel").get<std::string>();
  auto id = kernels::parse_kernel(name);
  if (!id) throw std::invalid_argument("unknown kernel '" + name + "'");
  return *id;
}

std::vector<std::byte> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the compiled binary " + path);
  std::vector<char> v((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(v.size());
  std::memcpy(out.data(), v.data(), v.size());
  return out;
}

// One race entry ready to sample. A kernel entry screens on slices of the pool (one graph per
// slice, measure/pool.hpp, each captured the first time it is needed: most candidates leave after
// one or three samples) and is timed over the whole pool once it is a finalist; a baseline has its
// own pool and is always timed over all of it.
struct Entry {
  bool kernel = false;
  std::vector<std::unique_ptr<measure::GraphTimer>> slices;  // one per slice, null until needed
  std::unique_ptr<measure::GraphTimer> full;
  std::function<void(int, gpu::Stream&)> enqueue;
  std::unique_ptr<kernels::PreparedBaseline> baseline;
  [[nodiscard]] bool ready() const { return full || kernel; }
};

struct Session {
  std::unique_ptr<gpu::Backend> backend;
  std::unique_ptr<gpu::Context> ctx;
  std::unique_ptr<gpu::Stream> stream;
  std::unique_ptr<kernels::Verifier> verifier;
  std::map<std::string, std::unique_ptr<gpu::Module>> modules;  // by binary path
  std::map<std::string, std::unique_ptr<kernels::Baseline>> baselines;
  std::unique_ptr<gpu::Module> floor_module, fp8_module;  // compiled here at first use

  // The timing pool for the current shape: `copies` independent sets of everything one call
  // touches, at the largest M (64 rows), so any M reads a cold weight.
  std::int64_t n = 0, k = 0;
  int copies = 0;
  measure::PoolSlices slicing;
  int cursor = 0;  // the next slice to screen on, shared by every entry (so reads stay cold)
  std::vector<gpu::DeviceBuffer> wq, wsz, a_f16, a_bf16, a_q, a_s, c;
  std::vector<Entry> entries;
  gpu::DeviceBuffer race_workspace;  // split-K scratch shared by the race's candidates

  gpu::Context& context() {
    if (!ctx) throw std::runtime_error("no device open (send 'open' first)");
    return *ctx;
  }

  gpu::Kernel& kernel(const std::string& path, kernels::KernelId id) {
    auto it = modules.find(path);
    if (it == modules.end()) it = modules.emplace(path, context().load(read_binary(path))).first;
    return it->second->kernel(std::string(kernels::name(id)));
  }

  // Releases everything device-side, dependents first (a re-open must not free buffers through a
  // context that is already gone: seen as a segfault on the H200, 2026-11-30).
  void close() {
    entries.clear();
    race_workspace = gpu::DeviceBuffer();
    wq.clear(), wsz.clear(), a_f16.clear(), a_bf16.clear(), a_q.clear(), a_s.clear(), c.clear();
    baselines.clear();
    modules.clear();
    floor_module.reset();
    fp8_module.reset();
    verifier.reset();
    stream.reset();
    ctx.reset();
    backend.reset();
    n = k = 0;
    copies = 0;
  }
  ~Session() { close(); }

  json open(const json& r) {
    close();
    backend = gpu::make_cuda_backend();
    const int dev = r.value("device", 0);
    if (backend->device_count() <= dev) {
      if (auto hip = gpu::make_hip_backend(); hip && hip->device_count() > dev)
        // The compiler the driver uses for this arch too (hipRTC if it knows it, else clang-19),
        // so the worker's own compiles (reference, quant_act, ceiling) build where the sweep's do.
        backend = gpu::make_backend(hip->device_info(dev).arch);
      else
        throw std::runtime_error("no GPU device " + std::to_string(dev) + ": " + backend->status());
    }
    ctx = backend->open(dev);
    stream = ctx->create_stream();
    verifier = std::make_unique<kernels::Verifier>(*backend, *ctx, *stream);
    json out = {{"device", gpu::to_json(ctx->info())}, {"compiler", backend->compiler_version()}};
    if (r.value("ceiling", true)) {
      const auto ceil = measure::measure_streaming_ceiling(*backend, *ctx);
      out["ceiling_gbps"] = ceil.gbps;
      out["ceiling_gbps_best"] = ceil.gbps_best;
      out["ceiling_bytes"] = ceil.bytes;
      out["ceiling_samples"] = ceil.samples;
      // A fresh context after the ceiling: in the context that measured it, every later launch
      // took ~0.18 us longer (H200, 2026-12-01, scripts/device/floors_worker.sh: the launch floor
      // 0.686 against 0.508 us, the 256x5120 read floor 1.887 against 1.709 us, in the same
      // worker with and without the ceiling at open), and so did every time the sweep stored.
      if (r.value("fresh_context", true)) {
        verifier.reset();
        stream.reset();
        ctx.reset();
        ctx = backend->open(dev);
        stream = ctx->create_stream();
        verifier = std::make_unique<kernels::Verifier>(*backend, *ctx, *stream);
      }
    }
    return out;
  }

  json shape(const json& r) {
    auto& cx = context();
    entries.clear();
    wq.clear(), wsz.clear(), a_f16.clear(), a_bf16.clear(), a_q.clear(), a_s.clear(), c.clear();
    n = r.at("n").get<std::int64_t>();
    k = r.at("k").get<std::int64_t>();
    verifier->set_shape(n, k, r.value("seed", 1u));
    const std::int64_t m = kernels::kMaxM;
    const std::int64_t wbytes = kernels::weight_bytes(n, k);
    const std::int64_t per_copy = wbytes + m * k * (2 + 2 + 1) + m * 4 + m * n * 2;
    std::int64_t llc = r.value("llc_bytes", std::int64_t{0});
    if (llc <= 0) llc = cx.info().llc_bytes;
    const auto max_bytes = r.value("max_bytes", std::int64_t{32} << 30);
    copies = measure::pool_copies(per_copy, llc, r.value("llc_factor", 4.0), max_bytes);
    slicing = measure::slice_pool(copies, r.value("max_slices", 4));
    if (slicing.copies * per_copy > max_bytes && slicing.copies > copies)
      slicing = {copies, 1, copies};  // no room to round up: screen over the whole pool
    copies = slicing.copies;
    cursor = 0;
    const auto& w0 = verifier->weights();
    const auto wq_bytes = static_cast<std::size_t>(n * k / 2);
    const auto wsz_bytes = static_cast<std::size_t>(n * k / kernels::kGroup * 4);
    for (int i = 0; i < copies; ++i) {
      wq.emplace_back(cx, wq_bytes);
      wsz.emplace_back(cx, wsz_bytes);
      cx.copy_device(wq.back().get(), w0.wq, wq_bytes, *stream);
      cx.copy_device(wsz.back().get(), w0.wsz, wsz_bytes, *stream);
      a_f16.emplace_back(cx, static_cast<std::size_t>(m * k * 2));
      a_bf16.emplace_back(cx, static_cast<std::size_t>(m * k * 2));
      a_q.emplace_back(cx, static_cast<std::size_t>(m * k));
      a_s.emplace_back(cx, static_cast<std::size_t>(m * 4));
      c.emplace_back(cx, static_cast<std::size_t>(m * n * 2));
      // Activations: 0x3C3C.. is 1.0-ish in f16 (0x3C3C = 1.06) and bf16 (0x3C3C = 0.0115): finite,
      // non-zero data (METHOD.md: never time on zeros).
      cx.memset8(a_f16.back().get(), 0x3C, static_cast<std::size_t>(m * k * 2), *stream);
      cx.memset8(a_bf16.back().get(), 0x3C, static_cast<std::size_t>(m * k * 2), *stream);
      cx.memset8(a_q.back().get(), 0x11, static_cast<std::size_t>(m * k), *stream);
      cx.memset8(a_s.back().get(), 0x3C, static_cast<std::size_t>(m * 4), *stream);
    }
    stream->synchronize();
    return {
        {"copies", copies},           {"slices", slicing.slices}, {"slice_len", slicing.slice_len},
        {"bytes_per_copy", per_copy}, {"llc_bytes", llc},         {"weight_bytes", wbytes}};
  }

  json verify(const json& r) {
    const auto id = kernel_of(r);
    const auto cfg = config_of(r);
    auto& kern = kernel(r.at("binary").get<std::string>(), id);
    const auto out =
        verifier->check(id, kern, cfg, r.at("m").get<std::int64_t>(), r.value("seed", 7u));
    return {
        {"pass", out.pass}, {"bad", out.bad}, {"max_ratio", out.max_ratio}, {"detail", out.detail}};
  }

  json race(const json& r) {
    auto& cx = context();
    entries.clear();
    const std::int64_t m = r.at("m").get<std::int64_t>();
    const kernels::Shape s{n, k, m};
    const auto& arch = cx.info().arch;
    const int warmup = r.value("warmup", 0);
    using Clock = std::chrono::steady_clock;
    const auto secs = [](Clock::time_point t0) {
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    // Candidates' slice graphs are captured when first sampled, so their cost is in sampling.
    double t_baselines = 0, t_candidates = 0, t_warmup = 0, t_workspace = 0;

    // One split-K workspace for the whole race, sized for its largest candidate: entries run one
    // after another on one stream and the kernels leave their tile counters at zero, so they can
    // share it (the verifier shares one the same way). Allocating one per entry cost a device
    // allocation and free per candidate (13380 in the dflash sweep).
    const auto t_ws = Clock::now();
    std::size_t ws_bytes = 0;
    for (const auto& e : r.at("entries"))
      if (!e.contains("baseline"))
        ws_bytes = std::max(ws_bytes, kernels::workspace_bytes(kernel_of(e), config_of(e), s));
    if (ws_bytes > race_workspace.bytes()) {
      race_workspace = gpu::DeviceBuffer(cx, ws_bytes);
      cx.memset8(race_workspace.get(), 0, ws_bytes, *stream);
    }
    t_workspace += secs(t_ws);
    const gpu::DevicePtr wsp = race_workspace.get();

    json ready = json::array(), notes = json::array();
    for (const auto& e : r.at("entries")) {
      Entry entry;
      std::string note;
      if (e.contains("baseline")) {
        const auto t0 = Clock::now();
        const auto bname = e.at("baseline").get<std::string>();
        const auto kind =
            bname == "bf16" ? kernels::BaselineKind::bf16 : kernels::BaselineKind::fp8_block;
        auto& b = baselines[bname];
        if (!b) b = kernels::make_cublaslt_baseline(kind, cx, *stream);
        // The library's algorithm is picked among its heuristic's top few by a short cold timing
        // each (1 warm-up, 3 replays): enough to tell algorithms apart, which often differ by
        // 2x; the race then measures the chosen one like every candidate.
        entry.baseline = b->prepare(s, kernels::TimingSpec{1, 3, 24}, note);
        if (entry.baseline) {
          auto* pb = entry.baseline.get();
          entry.full = std::make_unique<measure::GraphTimer>(
              cx, *stream, pb->copies(), [pb](int i, gpu::Stream& st) { pb->enqueue(i, st); });
          entry.full->warm_up(std::max(warmup, entry.full->uploaded() ? 0 : 1));
          note = pb->note();
        }
        t_baselines += secs(t0);
      } else {
        const auto t0 = Clock::now();
        const auto id = kernel_of(e);
        const auto cfg = config_of(e);
        auto* kern = &kernel(e.at("binary").get<std::string>(), id);
        const bool fp8 = kernels::is_fp8_act(id);
        auto* qa = fp8 ? &verifier->quant_act_fp8_kernel() : &verifier->quant_act_kernel();
        entry.enqueue = [this, id, cfg, kern, wsp, qa, fp8, s, &arch](int i, gpu::Stream& st) {
          const auto u = static_cast<std::size_t>(i);
          // The pool's int4 weights serve the MXFP4 GEMM's timing too: the same bytes per shape
          // (N*K/2 + N*K/32), and the values do not change its speed (no data-dependent path).
          const kernels::W4Weights w{wq[u].get(), wsz[u].get()};
          if (id == kernels::KernelId::gemm_w4a16_nt) {
            kernels::launch_gemm_w4a16(*kern, cfg, arch, s, a_f16[u].get(), w, c[u].get(), wsp, st);
          } else {
            // What serving pays for the one-byte paths: quantise the activations (int8 or e4m3,
            // into the same buffers) in the order the GEMM reads (kernels::act_order), then the
            // GEMM, under PDL where the device has it (kernels::a8_gemm_options; the verifier
            // checked the pair launched the same way).
            const auto order = kernels::act_order(id, cfg);
            if (fp8)
              kernels::launch_quant_act_fp8(*qa, s, a_bf16[u].get(), a_q[u].get(), a_s[u].get(),
                                            order, st);
            else
              kernels::launch_quant_act(*qa, s, a_bf16[u].get(), a_q[u].get(), a_s[u].get(), order,
                                        st);
            kernels::launch_gemm_a8(id, *kern, cfg, arch, s, a_q[u].get(), a_s[u].get(), w,
                                    c[u].get(), wsp, st, kernels::a8_gemm_options(arch, cfg, s.m));
          }
        };
        entry.kernel = true;
        entry.slices.resize(static_cast<std::size_t>(slicing.slices));
        t_candidates += secs(t0);
        // Warm-up (stop.warmup_replays, 0 by default): the kernel ran in verification already
        // (module loaded) and graphs are uploaded before they are timed; replays of the slice at
        // the cursor are enqueued without waiting. Never the slice the next sample times: that
        // would time copies the warm-up just left in the cache.
        const auto t1 = Clock::now();
        for (int w = 0; w < warmup; ++w) timer_for(entry, false).launch_untimed();
        t_warmup += secs(t1);
      }
      ready.push_back(entry.ready());
      notes.push_back(note);
      entries.push_back(std::move(entry));
    }
    const auto t_sync = Clock::now();
    stream->synchronize();
    t_warmup += secs(t_sync);
    return {{"ready", ready},
            {"notes", notes},
            {"copies", copies},
            {"slices", slicing.slices},
            {"slice_len", slicing.slice_len},
            {"setup_seconds",
             {{"workspace", t_workspace},
              {"baselines", t_baselines},
              {"candidates", t_candidates},
              {"warmup", t_warmup}}}};
  }

  // A module of the family's service kernels, compiled in the worker at first use.
  gpu::Module& service_module(std::unique_ptr<gpu::Module>& slot, const gpu::CompileRequest& req) {
    if (!slot) {
      auto res = backend->compile(req);
      if (!res.ok) throw std::runtime_error(req.source_name + " does not compile:\n" + res.log);
      slot = context().load(res.binary);
    }
    return *slot;
  }
  gpu::Kernel& floor_kernel(const char* name) {
    return service_module(floor_module, kernels::floor_compile_request(context().info().arch))
        .kernel(name);
  }

  // {"launch": bool}: the read floor of the current shape over its pool (and the launch floor).
  json floors(const json& r) {
    auto& cx = context();
    if (copies == 0) throw std::runtime_error("no shape set up (send 'shape' first)");
    entries.clear();  // no race graph may hold the stream while the floors are captured
    json out;
    std::vector<kernels::W4Weights> pool;
    for (int i = 0; i < copies; ++i)
      pool.push_back(
          {wq[static_cast<std::size_t>(i)].get(), wsz[static_cast<std::size_t>(i)].get()});
    // Both floor kernels (kernels/read_floor.cu), the faster one counts (docs/PERF.md, session 6).
    gpu::Kernel* const floors[] = {&floor_kernel("r4_read_floor"),
                                   &floor_kernel("r4_read_floor_fused")};
    const auto rf = measure::measure_read_floor(cx, *stream, floors, pool, n, k);
    out["read"] = {{"samples", rf.samples_us},
                   {"detail", rf.detail},
                   {"grid", {rf.grid.blocks, rf.grid.threads}},
                   {"bytes", kernels::read_floor_bytes(n, k)}};
    // The launch floor, after the read floors. (Its order does not matter: r4kern --floors reads
    // 0.50-0.51 us before and after them on the H200. The sweep's 0.69 us came from the context
    // that had measured the ceiling, see `open`; docs/PERF.md, session 6.)
    if (r.value("launch", false)) {
      const auto lf = measure::measure_launch_floor(cx, *stream, floor_kernel("r4_empty"));
      out["launch"] = {{"samples", lf.samples_us}, {"detail", lf.detail}};
    }
    return out;
  }

  // Decode-step chains (tuner/measure/step_chain.hpp): {"shapes": [[n, k, name], ...], "paths":
  // [...], "rounds", "seed", "llc_factor", "llc_bytes", "max_bytes", "steps": [{"m", "links":
  // [{"kernel", "binary", "config", "grid": [blocks, threads]}, ...]}, ...]}.
  json step(const json& r) {
    auto& cx = context();
    // The shape pool and race graphs go first: a step's pools are several times the LLC too.
    entries.clear();
    race_workspace = gpu::DeviceBuffer();
    wq.clear(), wsz.clear(), a_f16.clear(), a_bf16.clear(), a_q.clear(), a_s.clear(), c.clear();
    n = k = 0;
    copies = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
    std::vector<std::string> names;
    for (const auto& s : r.at("shapes")) {
      shapes.emplace_back(s.at(0).get<std::int64_t>(), s.at(1).get<std::int64_t>());
      names.push_back(s.size() > 2 ? s.at(2).get<std::string>() : std::string());
    }
    std::vector<measure::ChainPath> paths;
    for (const auto& p : r.at("paths")) {
      measure::ChainPath cp{};
      if (!measure::parse_chain_path(p.get<std::string>(), cp))
        throw std::invalid_argument("unknown step path '" + p.get<std::string>() + "'");
      paths.push_back(cp);
    }
    measure::ChainTools tools;
    tools.verifier = verifier.get();
    tools.read_floor = &floor_kernel("r4_read_floor");
    tools.quant_fp8 =
        &service_module(fp8_module, kernels::quant_fp8_block_compile_request(cx.info().arch))
             .kernel("quant_fp8_block");
    for (const char* b : {"bf16", "fp8_block"}) {
      auto& lib = baselines[b];
      if (!lib)
        lib = kernels::make_cublaslt_baseline(std::string(b) == "bf16"
                                                  ? kernels::BaselineKind::bf16
                                                  : kernels::BaselineKind::fp8_block,
                                              cx, *stream);
    }
    tools.bf16 = baselines["bf16"].get();
    tools.fp8 = baselines["fp8_block"].get();
    const auto seed = r.value("seed", 1u);
    measure::StepChain chain(cx, *stream, tools, shapes, r.value("llc_factor", 4.0),
                             r.value("llc_bytes", std::int64_t{0}),
                             r.value("max_bytes", std::int64_t{32} << 30), seed);
    std::mt19937_64 rng(seed);
    json steps = json::array();
    for (const auto& st : r.at("steps")) {
      const auto m = st.at("m").get<std::int64_t>();
      std::vector<measure::ChainLink> links;
      std::size_t i = 0;
      for (const auto& l : st.at("links")) {
        measure::ChainLink L;
        L.n = shapes.at(i).first;
        L.k = shapes.at(i).second;
        L.name = names.at(i);
        ++i;
        if (l.contains("kernel") && !l.at("kernel").is_null()) {
          L.kernel = kernel_of(l);
          L.config = config_of(l);
          L.gemm = &kernel(l.at("binary").get<std::string>(), L.kernel);
        }
        if (l.contains("grid"))
          L.floor_grid = {l.at("grid").at(0).get<unsigned>(), l.at("grid").at(1).get<unsigned>()};
        links.push_back(L);
      }
      const auto outcome = chain.time(m, links, paths, r.value("rounds", 15), rng);
      json pj = json::object();
      for (const auto& [p, o] : outcome)
        pj[measure::to_string(p)] = {{"ok", o.ok},
                                     {"detail", o.detail},
                                     {"launches", o.launches},
                                     {"samples", o.samples_us}};
      steps.push_back({{"m", m}, {"paths", pj}});
    }
    return {{"copies", chain.copies()}, {"steps", steps}};
  }

  // The timer the entry's next sample uses: its whole pool (finalists, baselines), or the slice
  // at the shared cursor, captured on first use. Advances the cursor.
  measure::GraphTimer& timer_for(Entry& e, bool whole_pool) {
    if (whole_pool || !e.kernel) {
      if (!e.full) {
        e.full = std::make_unique<measure::GraphTimer>(context(), *stream, 0, copies, e.enqueue);
        e.full->warm_up(1);
      }
      return *e.full;
    }
    const int sl = cursor;
    cursor = (cursor + 1) % slicing.slices;
    auto& t = e.slices[static_cast<std::size_t>(sl)];
    if (!t) {
      t = std::make_unique<measure::GraphTimer>(context(), *stream, sl * slicing.slice_len,
                                                slicing.slice_len, e.enqueue);
      // Without an upload call (HIP 5.2) the first launch uploads: run it once untimed, which
      // leaves this slice's copies in the cache for its first sample (a bias the AMD path
      // accepts until hipGraphUpload is available).
      if (!t->uploaded()) t->launch_untimed();
    }
    return *t;
  }

  Entry& entry_at(const json& j) {
    const auto i = j.get<std::size_t>();
    if (i >= entries.size() || !entries[i].ready())
      throw std::invalid_argument("no such race entry");
    return entries[i];
  }

  // {"entry": i, "full": bool}: a screening sample (one slice) or a whole-pool sample.
  json sample(const json& r) {
    auto& t = timer_for(entry_at(r.at("entry")), r.value("full", false));
    return {{"us", t.sample_us()}, {"launches", t.copies()}};
  }

  // {"entries": [i, ...], "full": bool}: one sample of each, enqueued back to back and collected
  // with one wait, so the device runs a round of the race without host gaps between samples.
  json sample_many(const json& r) {
    const bool full = r.value("full", false);
    std::vector<Entry*> es;
    std::set<std::size_t> seen;
    for (const auto& j : r.at("entries")) {
      if (!seen.insert(j.get<std::size_t>()).second)
        throw std::invalid_argument("an entry appears twice in one sample_many");
      es.push_back(&entry_at(j));
    }
    // A candidate's slice graph is captured, instantiated and uploaded at its first sample in a
    // race: ~1,300 of them in a dflash race's first round. They are built a chunk at a time while
    // the GPU times the chunk before, instead of all before the first sample with the GPU idle.
    // Each chunk after the first starts behind an untimed replay of the previous chunk's last
    // entry (its slice was just read; the next slices are other copies), so no timed sample's
    // start event meets a GPU that ran dry while graphs were built: it would time the graph's
    // submission too. Slices are assigned in entry order, as before.
    constexpr std::size_t kChunk = 32;
    std::vector<measure::GraphTimer*> timers;
    for (std::size_t first = 0; first < es.size(); first += kChunk) {
      const std::size_t end = std::min(es.size(), first + kChunk);
      for (std::size_t i = first; i < end; ++i) timers.push_back(&timer_for(*es[i], full));
      if (first > 0) timers[first - 1]->launch_untimed();
      for (std::size_t i = first; i < end; ++i) timers[i]->enqueue_timed();
    }
    json us = json::array(), launches = json::array();
    for (auto* t : timers) {
      us.push_back(t->collect_us());
      launches.push_back(t->copies());
    }
    return {{"us", us}, {"launches", launches}};
  }
};

// A GPU error in these ops may have poisoned the context: reply, then let the worker exit.
Handler guarded(std::shared_ptr<Session> s, json (Session::*fn)(const json&)) {
  return [s, fn](const json& r) -> json {
    try {
      return (s.get()->*fn)(r);
    } catch (const gpu::Error& e) {
      return {{"ok", false}, {"fatal", true}, {"error", e.what()}};
    }
  };
}

}  // namespace

Handlers device_handlers() {
  auto s = std::make_shared<Session>();
  Handlers h;
  h["ping"] = [](const json&) { return json{{"pong", true}}; };
  // The host's GPUs without opening any (no context): the CUDA devices, else the HIP ones (the
  // index space `open` uses).
  h["devices"] = [](const json&) -> json {
    json out = {{"devices", json::array()}};
    auto backend = gpu::make_cuda_backend();
    std::string status = fmt::format("cuda: {}", backend->status());
    if (backend->device_count() == 0) {
      if (auto hip = gpu::make_hip_backend()) {
        status += fmt::format("; hip: {}", hip->status());
        backend = std::move(hip);
      }
    }
    for (int i = 0; i < backend->device_count(); ++i)
      out["devices"].push_back(gpu::to_json(backend->device_info(i)));
    out["status"] = status;
    return out;
  };
  h["open"] = guarded(s, &Session::open);
  h["shape"] = guarded(s, &Session::shape);
  h["verify"] = guarded(s, &Session::verify);
  h["race"] = guarded(s, &Session::race);
  h["sample"] = guarded(s, &Session::sample);
  h["sample_many"] = guarded(s, &Session::sample_many);
  h["floors"] = guarded(s, &Session::floors);
  h["step"] = guarded(s, &Session::step);
  return h;
}

}  // namespace r4::worker
