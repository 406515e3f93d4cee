#include "tuner/measure/step_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <fmt/core.h>

#include "kernels/host_half.hpp"
#include "kernels/random_weights.hpp"
#include "kernels/tolerance.hpp"
#include "kernels/weight_layout.hpp"
#include "tuner/measure/graph_timer.hpp"
#include "tuner/measure/pool.hpp"

namespace r4::measure {

namespace {

constexpr std::int64_t kRowsAlloc = 64;  // buffers hold the largest M (and fp8's M padded to 16)
constexpr unsigned kFloorWords = 8192;   // >= any read-floor grid's blocks (8 per SM)

const char* const kPathNames[] = {"w4",        "w4_pdl",     "bf16",
                                  "fp8_block", "read_floor", "read_floor_pdl"};

bool is_pdl(ChainPath p) {
  return p == ChainPath::w4_pdl || p == ChainPath::read_floor_pdl;
}

}  // namespace

const char* to_string(ChainPath p) {
  return kPathNames[static_cast<int>(p)];
}

bool parse_chain_path(const std::string& s, ChainPath& out) {
  for (int i = 0; i < 6; ++i)
    if (s == kPathNames[i]) {
      out = static_cast<ChainPath>(i);
      return true;
    }
  return false;
}

struct StepChain::Impl {
  gpu::Context& ctx;
  gpu::Stream& stream;
  ChainTools tools;
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  int copies = 2;
  std::int64_t max_dim = 0, max_k = 0;
  // weights[link][copy]: independent copies, as distinct layers of a model have distinct weights.
  std::vector<std::vector<kernels::W4Weights>> weights;
  std::vector<gpu::DeviceBuffer> weight_store;
  // Per link: its bf16 output [64, max_dim], int8 activations + row scales (w4a8), e4m3
  // activations + block scales (fp8), read-floor words. `input` is link 0's input when a chain is
  // verified (in the timing graphs link 0 reads the last link's output).
  std::vector<gpu::DeviceBuffer> out, aq, sa, aq8, sc8, words;
  // The checks' natural-order copy of a w4a8 link's int8 activations, where the link's GEMM reads
  // them in the sm90a order (kernels::act_order): the reference reads natural order.
  gpu::DeviceBuffer aq_check;
  gpu::DeviceBuffer input, workspace, ref, norm, result;
  std::size_t workspace_bytes = 0;

  Impl(gpu::Context& c, gpu::Stream& s, ChainTools t) : ctx(c), stream(s), tools(t) {}

  [[nodiscard]] std::size_t links() const { return shapes.size(); }

  void build(double llc_factor, std::int64_t llc_bytes, std::int64_t max_bytes,
             std::uint32_t seed) {
    if (shapes.empty()) throw std::invalid_argument("a decode step needs at least one shape");
    std::int64_t step_bytes = 0;
    for (auto [n, k] : shapes) {
      step_bytes += kernels::weight_bytes(n, k);
      max_dim = std::max({max_dim, n, k});
      max_k = std::max(max_k, k);
    }
    if (llc_bytes <= 0) llc_bytes = ctx.info().llc_bytes;
    copies = pool_copies(step_bytes, llc_bytes, llc_factor, max_bytes);
    // Scales about 1 / (4.6 sqrt(K)) (codes -8..7 have a standard deviation of ~4.6): each GEMM
    // then keeps the activations' magnitude, so a pool replayed many times as one chain neither
    // overflows nor underflows bf16 (the verifier's scales, 0.005..0.03, grow it ~6x per link).
    const auto layout = kernels::weight_layout(ctx.info().arch);
    if (!layout) throw std::invalid_argument("no packed-weight layout for " + ctx.info().arch.name);
    weights.resize(links());
    // Room for every buffer first: `q` and `z` below are references into weight_store, which a
    // reallocation would leave dangling (a use after free; session 10 found the same pattern
    // behind an intermittent CUDA_ERROR_INVALID_VALUE in the PDL test).
    weight_store.reserve(weight_store.size() + 2 * links() * static_cast<std::size_t>(copies));
    for (std::size_t l = 0; l < links(); ++l) {
      const auto [n, k] = shapes[l];
      const float s = 1.0f / (4.6f * std::sqrt(static_cast<float>(k)));
      const auto p = kernels::random_packed_weights(*layout, n, k, seed + static_cast<unsigned>(l),
                                                    0.5f * s, 1.5f * s);
      const auto qb = p.wq.size() * 4, sb = p.wsz.size() * 4;
      for (int c = 0; c < copies; ++c) {
        auto& q = weight_store.emplace_back(ctx, qb);
        auto& z = weight_store.emplace_back(ctx, sb);
        if (c == 0) {
          ctx.copy_to_device(q.get(), p.wq.data(), qb);
          ctx.copy_to_device(z.get(), p.wsz.data(), sb);
        } else {
          ctx.copy_device(q.get(), weights[l][0].wq, qb, stream);
          ctx.copy_device(z.get(), weights[l][0].wsz, sb, stream);
        }
        weights[l].push_back({q.get(), z.get()});
      }
      const auto act = static_cast<std::size_t>(kRowsAlloc * max_dim);
      out.emplace_back(ctx, act * 2);
      aq.emplace_back(ctx, act);
      if (aq_check.bytes() < act) aq_check = gpu::DeviceBuffer(ctx, act);
      sa.emplace_back(ctx, static_cast<std::size_t>(kRowsAlloc) * 4);
      aq8.emplace_back(ctx, act);
      sc8.emplace_back(ctx, static_cast<std::size_t>((max_k / kernels::kGroup) * kRowsAlloc) * 4);
      words.emplace_back(ctx, kFloorWords * 4);
      // Finite, non-zero contents for every buffer a timing graph may read before a link of this
      // replay wrote it (0x3C3C: ~1.06 as f16, ~0.0115 as bf16).
      ctx.memset8(out.back().get(), 0x3C, act * 2, stream);
      ctx.memset8(aq.back().get(), 0x11, act, stream);
      ctx.memset8(sa.back().get(), 0x3C, static_cast<std::size_t>(kRowsAlloc) * 4, stream);
      ctx.memset8(aq8.back().get(), 0x30, act, stream);
      ctx.memset8(sc8.back().get(), 0x3C, sc8.back().bytes(), stream);
      ctx.memset8(words.back().get(), 0, kFloorWords * 4, stream);
    }
    input = gpu::DeviceBuffer(ctx, static_cast<std::size_t>(kRowsAlloc * max_dim) * 2);
    ref = gpu::DeviceBuffer(ctx, static_cast<std::size_t>(kRowsAlloc * max_dim) * 4);
    norm = gpu::DeviceBuffer(ctx, static_cast<std::size_t>(kRowsAlloc * max_dim) * 4);
    result = gpu::DeviceBuffer(ctx, 16);
    stream.synchronize();
  }

  void ensure_workspace(std::size_t bytes) {
    if (bytes <= workspace_bytes) return;
    workspace = gpu::DeviceBuffer(ctx, bytes);
    ctx.memset8(workspace.get(), 0, bytes, stream);  // split-K counters start at zero
    workspace_bytes = bytes;
  }

  // The link's input: the previous link's output, or for link 0 the last link's (timing) or the
  // verification input.
  [[nodiscard]] gpu::DevicePtr input_of(std::size_t l, bool verifying) const {
    if (l > 0) return out[l - 1].get();
    return verifying ? input.get() : out[links() - 1].get();
  }

  void enqueue_w4(const std::vector<ChainLink>& chain, std::int64_t m, int copy, bool pdl,
                  bool verifying, gpu::Stream& s) {
    const auto& arch = ctx.info().arch;
    for (std::size_t l = 0; l < links(); ++l) {
      const auto& L = chain[l];
      // A balanced grid's GEMM above M = 8 (and its quantiser, whose PDL wait would otherwise let
      // the GEMM's predecessor overlap it) launches plainly (kernels::pdl_allowed).
      const gpu::LaunchOptions opt{pdl && gpu::has_pdl(arch) && kernels::pdl_allowed(L.config, m),
                                   {1, 1, 1}};
      const kernels::Shape sh{L.n, L.k, m};
      const auto& w = weights[l][static_cast<std::size_t>(copy)];
      if (L.kernel == kernels::KernelId::gemm_w4a16_nt) {
        kernels::launch_gemm_w4a16(*L.gemm, L.config, arch, sh, input_of(l, verifying), w,
                                   out[l].get(), workspace.get(), s, opt);
      } else {
        kernels::launch_quant_act(tools.verifier->quant_act_kernel(), sh, input_of(l, verifying),
                                  aq[l].get(), sa[l].get(), kernels::act_order(L.kernel, L.config),
                                  s, opt);
        kernels::launch_gemm_w4a8(*L.gemm, L.config, arch, sh, aq[l].get(), sa[l].get(), w,
                                  out[l].get(), workspace.get(), s, opt);
      }
    }
  }

  void enqueue_floor(const std::vector<ChainLink>& chain, int copy, bool pdl, gpu::Stream& s) {
    const gpu::LaunchOptions opt{pdl && gpu::has_pdl(ctx.info().arch), {1, 1, 1}};
    for (std::size_t l = 0; l < links(); ++l) {
      const auto& L = chain[l];
      const gpu::DevicePtr in = words[l == 0 ? links() - 1 : l - 1].get();
      kernels::launch_read_floor(*tools.read_floor, L.floor_grid,
                                 weights[l][static_cast<std::size_t>(copy)], L.n, L.k, in,
                                 words[l].get(), s, opt);
    }
  }

  // Runs the chain once on fresh random input, outputs poisoned first, then checks every link's
  // output against the reference computed from the input it actually read. Empty when all pass.
  std::string verify_w4(const std::vector<ChainLink>& chain, std::int64_t m, bool pdl,
                        std::uint32_t seed) {
    const auto in_elems = static_cast<std::size_t>(m * chain.front().k);
    std::vector<std::uint16_t> x(in_elems);
    std::mt19937 rng(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (auto& v : x) v = kernels::float_to_bf16(nd(rng));
    ctx.copy_to_device(input.get(), x.data(), in_elems * 2);
    for (std::size_t l = 0; l < links(); ++l)
      ctx.memset8(out[l].get(), 0xFF, static_cast<std::size_t>(m * chain[l].n) * 2, stream);
    enqueue_w4(chain, m, 0, pdl, true, stream);
    stream.synchronize();
    std::string problems;
    for (std::size_t l = 0; l < links(); ++l) {
      const auto& L = chain[l];
      const bool a8 = L.kernel == kernels::KernelId::gemm_w4a8_nt;
      gpu::DevicePtr A = a8 ? aq[l].get() : input_of(l, true);
      if (a8 && kernels::act_order(L.kernel, L.config) != kernels::ActOrder::natural) {
        // Quantised again in natural order from the same input (quant_act is deterministic and
        // its row scales do not depend on the order).
        A = aq_check.get();
        kernels::launch_quant_act(tools.verifier->quant_act_kernel(), {L.n, L.k, m},
                                  input_of(l, true), A, sa[l].get(), kernels::ActOrder::natural,
                                  stream);
      }
      gpu::DevicePtr sap = sa[l].get(), wq = weights[l][0].wq, wsz = weights[l][0].wsz;
      gpu::DevicePtr rp = ref.get(), np = norm.get(), op = out[l].get(), res = result.get();
      int kind = a8 ? 2 : 1, M = static_cast<int>(m), N = static_cast<int>(L.n),
          K = static_cast<int>(L.k);
      const auto total = static_cast<unsigned>(m * L.n);
      void* rargs[] = {&A, &kind, &sap, &wq, &wsz, &rp, &np, &M, &N, &K};
      tools.verifier->reference_kernel().launch({(total + 255) / 256}, {256}, 0, stream, rargs);
      const auto tol = kernels::tolerance(L.kernel, !a8, L.k);
      ctx.memset8(res, 0, 16, stream);
      auto count = static_cast<long long>(total);
      float rel = tol.rel, abs_coef = tol.abs_coef;
      void* cargs[] = {&op, &rp, &np, &count, &rel, &abs_coef, &res};
      tools.verifier->check_kernel().launch({(total + 255) / 256}, {256}, 0, stream, cargs);
      stream.synchronize();
      std::uint32_t v[4] = {};
      ctx.copy_to_host(v, res, 16);
      float max_ratio = 0;
      std::memcpy(&max_ratio, &v[1], 4);
      if (v[0] != 0)
        problems += fmt::format("{}link {} ({} {}x{}): {} of {} elements out of tolerance",
                                problems.empty() ? "" : "; ", l, L.name, L.n, L.k, v[0], total);
    }
    return problems;
  }
};

StepChain::StepChain(gpu::Context& ctx, gpu::Stream& stream, ChainTools tools,
                     std::vector<std::pair<std::int64_t, std::int64_t>> shapes, double llc_factor,
                     std::int64_t llc_bytes, std::int64_t max_bytes, std::uint32_t seed)
    : impl_(std::make_unique<Impl>(ctx, stream, tools)) {
  impl_->shapes = std::move(shapes);
  impl_->build(llc_factor, llc_bytes, max_bytes, seed);
}

StepChain::~StepChain() = default;

int StepChain::copies() const {
  return impl_->copies;
}

std::map<ChainPath, PathOutcome> StepChain::time(std::int64_t m,
                                                 const std::vector<ChainLink>& links,
                                                 const std::vector<ChainPath>& paths, int rounds,
                                                 std::mt19937_64& rng) {
  auto& I = *impl_;
  if (links.size() != I.links())
    throw std::invalid_argument("StepChain::time: the links do not match the chain's shapes");
  if (m < 1 || m > kRowsAlloc) throw std::invalid_argument("StepChain::time: M out of 1..64");
  for (std::size_t l = 0; l < links.size(); ++l)
    if (links[l].n != I.shapes[l].first || links[l].k != I.shapes[l].second)
      throw std::invalid_argument("StepChain::time: link shapes differ from the chain's");

  std::map<ChainPath, PathOutcome> outcomes;
  std::vector<std::pair<ChainPath, std::unique_ptr<GraphTimer>>> timers;
  // Baseline plans of this M (their pools and chosen algorithms), kept alive while timed.
  std::vector<std::unique_ptr<kernels::PreparedBaseline>> plans_bf16, plans_fp8;

  for (const ChainPath path : paths) {
    PathOutcome& o = outcomes[path];
    std::function<void(int, gpu::Stream&)> enqueue;
    try {
      switch (path) {
        case ChainPath::w4:
        case ChainPath::w4_pdl: {
          std::size_t ws = 0;
          for (const auto& L : links) {
            if (!L.gemm) throw std::invalid_argument("link " + L.name + " has no 4-bit kernel");
            ws = std::max(ws, kernels::workspace_bytes(L.kernel, L.config, {L.n, L.k, m}));
            o.launches += L.kernel == kernels::KernelId::gemm_w4a8_nt ? 2 : 1;
          }
          I.ensure_workspace(ws);
          const bool pdl = is_pdl(path);
          const auto why = I.verify_w4(links, m, pdl, static_cast<std::uint32_t>(rng()));
          if (!why.empty()) {
            o.detail =
                fmt::format("verification of the chain{} failed: {}", pdl ? " with PDL" : "", why);
            continue;
          }
          o.detail = fmt::format("every link's output verified against the reference{}",
                                 pdl ? " with PDL on" : "");
          enqueue = [&I, &links, m, pdl](int c, gpu::Stream& s) {
            I.enqueue_w4(links, m, c, pdl, false, s);
          };
          break;
        }
        case ChainPath::read_floor:
        case ChainPath::read_floor_pdl: {
          if (!I.tools.read_floor) throw std::invalid_argument("no read-floor kernel");
          o.launches = static_cast<int>(links.size());
          const bool pdl = is_pdl(path);
          enqueue = [&I, &links, pdl](int c, gpu::Stream& s) { I.enqueue_floor(links, c, pdl, s); };
          o.detail = "each link streams its shape's packed bytes, then reads the previous output";
          break;
        }
        case ChainPath::bf16:
        case ChainPath::fp8_block: {
          const bool fp8 = path == ChainPath::fp8_block;
          kernels::Baseline* lib = fp8 ? I.tools.fp8 : I.tools.bf16;
          if (!lib || !lib->unavailable_reason().empty())
            throw std::invalid_argument(lib ? lib->unavailable_reason() : "no baseline library");
          if (fp8 && !I.tools.quant_fp8) throw std::invalid_argument("no fp8 quantiser");
          auto& plans = fp8 ? plans_fp8 : plans_bf16;
          std::string notes;
          for (const auto& L : links) {
            std::string why;
            auto p = lib->prepare({L.n, L.k, m}, kernels::TimingSpec{1, 3, 24}, why);
            if (!p) throw std::invalid_argument(fmt::format("{} {}x{}: {}", L.name, L.n, L.k, why));
            notes += fmt::format("{}{}: {}", notes.empty() ? "" : "; ", L.name, p->note());
            plans.push_back(std::move(p));
          }
          o.launches = static_cast<int>(links.size()) * (fp8 ? 2 : 1);
          o.detail = notes;
          enqueue = [&I, &links, &plans, fp8](int c, gpu::Stream& s) {
            for (std::size_t l = 0; l < links.size(); ++l) {
              auto& p = *plans[l];
              const gpu::DevicePtr in = I.input_of(l, false);
              if (fp8) {
                kernels::launch_quant_fp8_block(*I.tools.quant_fp8,
                                                {links[l].n, links[l].k, p.rows()}, in,
                                                I.aq8[l].get(), I.sc8[l].get(), s);
                p.enqueue_on(c, I.aq8[l].get(), I.sc8[l].get(), I.out[l].get(), s);
              } else {
                p.enqueue_on(c, in, 0, I.out[l].get(), s);
              }
            }
          };
          break;
        }
      }
      auto t = std::make_unique<GraphTimer>(I.ctx, I.stream, I.copies, enqueue);
      t->warm_up(1);
      timers.emplace_back(path, std::move(t));
      o.ok = true;
    } catch (const std::exception& e) {
      o.ok = false;
      o.detail = e.what();
    }
  }
  // Rounds: every prepared path once per round, in a fresh random order, back to back.
  std::vector<std::size_t> order(timers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) timers[i].second->enqueue_timed();
    for (std::size_t i : order)
      outcomes[timers[i].first].samples_us.push_back(timers[i].second->collect_us());
  }
  return outcomes;
}

}  // namespace r4::measure
