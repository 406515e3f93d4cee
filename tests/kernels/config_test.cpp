#include "kernels/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kernels/family.hpp"
#include "kernels/tolerance.hpp"

namespace r4::kernels {
namespace {

const gpu::Arch sm90{gpu::Vendor::nvidia, "sm_90", 9, 0};

// is_valid is usable in constant expressions (generated headers static_assert with it).
static_assert([] {
  gpu::Arch a{gpu::Vendor::nvidia, "sm_90", 9, 0};
  return is_valid(KernelId::gemm_w4a16_nt, Config{1, 4, 1, 1, 1}, a, Shape{3072, 5120, 8}) &&
         !is_valid(KernelId::gemm_w4a16_nt, Config{3, 4, 1, 1, 1}, a, Shape{3072, 5120, 8});
}());

// One wave of an sm90a grid, and no more, fits on an SM: the H100 SXM / H200's 132 SMs of
// 233,472 bytes, 1,024 reserved per block (cudaDevAttrMaxSharedMemoryPerMultiprocessor,
// cudaDevAttrReservedSharedMemoryPerBlock).
TEST(Config, Sm90aWaveSharedBytes) {
  constexpr SmShared h100{132, 233472, 1024};
  const auto fits = [&](std::int64_t bytes) { return h100.per_sm / (bytes + h100.reserved); };
  // o_proj w4a8 (4, 1, 2, 2, 1, 8)'s 107,520-byte ring in a grid of fewer CTAs than SMs (64 here;
  // o_proj at M = 64 launches 80): one CTA per SM.
  const auto o = sm90a_wave_shared_bytes(107520, 64, h100);
  EXPECT_EQ(o, 115713);
  EXPECT_EQ(fits(o), 1);
  EXPECT_EQ(fits(o - 1), 2);  // the least such bytes
  // gate_up (4, 2, 1, 2, 0, 4) at M = 1: 272 CTAs need 3 per SM; its 46,080-byte ring fits 4.
  const auto g = sm90a_wave_shared_bytes(46080, 272, h100);
  EXPECT_EQ(fits(46080), 4);
  EXPECT_EQ(fits(g), 3);
  // Already at most one wave's worth: unchanged; likewise a ring larger than the wave allows.
  EXPECT_EQ(sm90a_wave_shared_bytes(150000, 64, h100), 150000);
  EXPECT_EQ(sm90a_wave_shared_bytes(100000, 400, h100), 100000);
  // An unknown device: the ring's bytes.
  EXPECT_EQ(sm90a_wave_shared_bytes(107520, 64, SmShared{}), 107520);
  // The most any launch is raised to: one CTA per SM, within the 227 KiB a block may opt into.
  EXPECT_EQ(sm90a_wave_shared_ceiling(h100), 115713);
  EXPECT_LE(sm90a_wave_shared_ceiling(h100), kSm90aSharedLimit);
}

TEST(Config, SpaceIsModerateAndValid) {
  for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt}) {
    const auto space = config_space(id, sm90);
    std::size_t per_gen[3] = {0, 0, 0};
    std::set<std::string> seen;
    for (const auto& c : space) {
      EXPECT_TRUE(is_valid(id, c, sm90));
      EXPECT_TRUE(seen.insert(to_string(c)).second);
      ++per_gen[c.gen];
      if (c.gen == kGenMmaSync)
        EXPECT_GT(pipeline_stages(id, c), 0);
      else if (c.gen == kGenSm90a)
        EXPECT_LE(sm90a_shared_bytes(id, c), kSm90aSharedLimit);
      else
        EXPECT_EQ(launch_dims(id, c, sm90, {3072, 5120, 8}).shared_bytes,  // ldg: registers,
                  c.sk > 1 ? splitk_cluster_tile_bytes(c) : 0);  // but the cluster split-K tile
    }
    // Each generation's space stays moderate: every config is compiled, verified and raced.
    EXPECT_GT(per_gen[0], 100u);
    EXPECT_LE(per_gen[0], 400u);
    EXPECT_GT(per_gen[1], 100u);
    // w4a8: 390 split-K tuples + 14 stream-K (session 25) + 20 balanced (session 38)
    EXPECT_LE(per_gen[1], 440u);
    EXPECT_GT(per_gen[2], 50u);
    EXPECT_LE(per_gen[2], 400u);
  }
  // The sm90a generation only where the device has wgmma (compute capability 9.x); the ldg
  // generation on every NVIDIA target with mma.sync.
  const gpu::Arch sm89{gpu::Vendor::nvidia, "sm_89", 8, 9};
  std::size_t ldg89 = 0;
  for (const auto& c : config_space(KernelId::gemm_w4a8_nt, sm89)) {
    EXPECT_NE(c.gen, kGenSm90a);
    ldg89 += c.gen == kGenLdg ? 1 : 0;
  }
  EXPECT_GT(ldg89, 50u);
}

// The quantiser + GEMM pair's GEMM launches under PDL exactly where the device has it and the
// config allows it at M (the races, the verifier, r4kern and r4d_bench share this rule; r4d's
// Pdl::automatic is the same): every config but a balanced grid above M = 8 (pdl_allowed).
TEST(Config, OneByteGemmAfterItsQuantiserUsesPdlWhereTheDeviceHasIt) {
  const Config c{4, 1, 1, 1, 1, kGenSm90a, 4}, bal{4, kSm90aBalanced, 1, 1, 1, kGenSm90a, 4};
  const Config ldg{4, 2, 1, 1, 0, kGenLdg, 2};
  for (std::int64_t m : {1, 8, 16, 64}) {
    EXPECT_TRUE(a8_gemm_options(sm90, c, m).pdl) << m;
    EXPECT_TRUE(a8_gemm_options(sm90, ldg, m).pdl) << m;
    EXPECT_TRUE(pdl_allowed(c, m)) << m;
  }
  EXPECT_TRUE(a8_gemm_options(sm90, bal, 1).pdl);
  EXPECT_TRUE(pdl_allowed(bal, kBalancedPdlMaxM));
  EXPECT_FALSE(pdl_allowed(bal, kBalancedPdlMaxM + 1));
  EXPECT_FALSE(a8_gemm_options(sm90, bal, 16).pdl);
  EXPECT_FALSE(a8_gemm_options(gpu::Arch::from("sm_89"), ldg, 1).pdl);
  EXPECT_FALSE(a8_gemm_options(gpu::Arch::from("sm_80"), ldg, 1).pdl);
  EXPECT_FALSE(a8_gemm_options(gpu::Arch::from("gfx1201"), Config{4, 1, 1, 1, 0}, 1).pdl);
  const auto o = a8_gemm_options(sm90, c, 1);
  EXPECT_EQ(o.cluster.x * o.cluster.y * o.cluster.z, 1u);  // no cluster: a plain grid
}

// Cluster split-K (kernels/splitk.h): the ldg generation's int4 kinds on sm_90+ may launch SK > 1
// as a cluster of the SK splits, with its tile as dynamic shared memory; nothing else does.
TEST(Config, SplitKClustersWhereTheDeviceHasThem) {
  const gpu::Arch sm89{gpu::Vendor::nvidia, "sm_89", 8, 9};
  const gpu::Arch gfx1201 = gpu::Arch::from("gfx1201");
  const Shape s{3072, 5120, 64};
  std::size_t clustered = 0;
  for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt, KernelId::gemm_w4a8fp8_nt,
                      KernelId::gemm_mxfp4a8fp8_nt})
    for (const auto& c : config_space(id, sm90)) {
      const bool want = c.sk > 1 && c.gen == kGenLdg && !is_fp8_act(id);
      EXPECT_EQ(splitk_cluster(id, c, sm90), want) << to_string(c);
      EXPECT_FALSE(splitk_cluster(id, c, sm89)) << to_string(c);
      if (!is_valid(id, c, sm90, s)) continue;
      const auto d = launch_dims(id, c, sm90, s);
      EXPECT_EQ(d.cluster.x, 1u);
      EXPECT_EQ(d.cluster.y, want ? static_cast<unsigned>(c.sk) : 1u);
      EXPECT_EQ(d.cluster.z, 1u);
      EXPECT_EQ(d.grid.y % d.cluster.y, 0u);  // a cluster shape must divide the grid
      EXPECT_LE(d.cluster.y, 16u);            // the H100 / H200 non-portable maximum
      EXPECT_EQ(d.cluster_shared, want ? splitk_cluster_tile_bytes(c) : 0);
      if (want) {
        EXPECT_EQ(d.shared_bytes, d.cluster_shared);  // the ldg generation: registers otherwise
        EXPECT_LE(d.shared_bytes, 48u * 1024u);       // no opt-in needed (r4d opts in sm90a only)
      }
      // On sm_89 the same config has no cluster code, and no cluster.
      if (is_valid(id, c, sm89, s)) {
        const auto d89 = launch_dims(id, c, sm89, s);
        EXPECT_EQ(d89.cluster.y, 1u);
        EXPECT_EQ(d89.cluster_shared, 0u);
      }
      clustered += want ? 1 : 0;
    }
  EXPECT_GT(clustered, 200u);  // 288 at 2026-12-03: w4a16 and w4a8, SK 2..16
  for (const auto& c : config_space(KernelId::gemm_w4a16_nt, gfx1201))
    EXPECT_FALSE(splitk_cluster(KernelId::gemm_w4a16_nt, c, gfx1201));
}

TEST(Config, ShapeLimits) {
  const Config c{4, 2, 1, 1, 0};
  EXPECT_TRUE(is_valid(KernelId::gemm_w4a8_nt, c, sm90, {3072, 5120, 64}));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, c, sm90, {3072, 5120, 65}));  // M > 64
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, c, sm90, {3080, 5120, 8}));   // N % 16
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, c, sm90, {3072, 5000, 8}));   // K % 128
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, Config{4, 2, 2, 1, 0}, sm90, {3072, 5120, 16}));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, Config{2, 1, 1, 1, 0}, sm90, {16, 128, 1}));
  EXPECT_TRUE(is_valid(KernelId::gemm_w4a8_nt, Config{1, 2, 1, 1, 0}, sm90, {16, 128, 1}));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, Config{1, 4, 1, 1, 0}, sm90, {16, 128, 1}));
  const gpu::Arch sm75{gpu::Vendor::nvidia, "sm_75", 7, 5};
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a16_nt, c, sm75));
}

TEST(Config, AmdTargetsWithAMatrixPathHaveTheFullSpace) {
  // gfx11 / gfx12 WMMA (wave32) and gfx942 MFMA (wave64) share the ranges; WV counts the target's
  // own waves, so a gfx942 block is WV x 64 work-items.
  // The comparison is with sm_89's mma.sync generation, the one AMD targets have.
  const gpu::Arch sm89{gpu::Vendor::nvidia, "sm_89", 8, 9};
  for (const char* a : {"gfx1100", "gfx1200", "gfx1201", "gfx942"}) {
    const auto arch = gpu::Arch::from(a);
    for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt}) {
      const auto nv = config_space(id, sm89);
      const auto mma_sync =
          std::count_if(nv.begin(), nv.end(), [](const Config& c) { return c.gen == kGenMmaSync; });
      EXPECT_EQ(config_space(id, arch).size(), static_cast<std::size_t>(mma_sync)) << a;
    }
    EXPECT_EQ(config_space(KernelId::quant_act, arch).size(), 1u);
  }
  const auto mi300 = gpu::Arch::from("gfx942");
  const auto d = launch_dims(KernelId::gemm_w4a16_nt, {8, 1, 1, 1, 0}, mi300, {3072, 5120, 8});
  EXPECT_EQ(d.block.x, 512u);
  EXPECT_EQ(d.grid.x, 3072u / 16 / 8);
  EXPECT_EQ(launch_dims(KernelId::gemm_w4a16_nt, {8, 1, 1, 1, 0}, gpu::Arch::from("gfx1201"),
                        {3072, 5120, 8})
                .block.x,
            256u);
  // No GEMM path: CDNA2 (gfx90a), RDNA2 (gfx1030).
  for (const char* a : {"gfx90a", "gfx1030"})
    for (KernelId id : {KernelId::gemm_w4a16_nt, KernelId::gemm_w4a8_nt})
      EXPECT_TRUE(config_space(id, gpu::Arch::from(a)).empty()) << a;
}

TEST(Config, Fp8ActivationGemmsRunOnSm89AndUp) {
  // The ldg generation's tuples with one-byte activations, as gemm_w4a8_nt's (same budget), and
  // for gemm_w4a8fp8_nt the sm90a generation's on a 9.x device, as gemm_w4a8_nt's.
  const auto w4a8 = config_space(KernelId::gemm_w4a8_nt, sm90);
  const auto count_gen = [](const std::vector<Config>& v, int gen) {
    return static_cast<std::size_t>(
        std::count_if(v.begin(), v.end(), [gen](const Config& c) { return c.gen == gen; }));
  };
  const gpu::Arch sm89{gpu::Vendor::nvidia, "sm_89", 8, 9};
  for (KernelId id : {KernelId::gemm_w4a8fp8_nt, KernelId::gemm_mxfp4a8fp8_nt}) {
    EXPECT_TRUE(is_fp8_act(id));
    const auto sp = config_space(id, sm90);
    EXPECT_EQ(count_gen(sp, kGenLdg), count_gen(w4a8, kGenLdg));
    EXPECT_EQ(count_gen(sp, kGenMmaSync), 0u);  // no mma.sync-ring body
    // Every one-byte sm90a config bulk-copies its activations from the sm90a order (act_order;
    // session 33), with no staging ring, so gemm_w4a8fp8_nt has exactly gemm_w4a8_nt's tuples;
    // gemm_mxfp4a8fp8_nt's (four partials per accumulator, or two in two halves) those with at
    // most 4 accumulator tiles of 16 x 64 (MB x NPW), from the sm90a_mx order, and a stream-K
    // tuple of one consumer warpgroup at MB 4 (NT 0 and 1).
    const bool mx = id == KernelId::gemm_mxfp4a8fp8_nt;
    const auto fits_mx = [](const Config& c) { return c.mb * c.npw <= 4; };
    EXPECT_EQ(count_gen(sp, kGenSm90a),
              static_cast<std::size_t>(std::count_if(
                  w4a8.begin(), w4a8.end(),
                  [&](const Config& c) { return c.gen == kGenSm90a && (!mx || fits_mx(c)); })) +
                  (mx ? 2u : 0u));
    EXPECT_EQ(is_valid(id, Config{4, kSm90aStreamK, 4, 1, 0, kGenSm90a, 4}, sm90), mx);
    EXPECT_GT(count_gen(sp, kGenSm90a), 0u);
    for (const Config& c : sp) {
      if (c.gen == kGenSm90a) {
        EXPECT_EQ(act_order(id, c), mx ? ActOrder::sm90a_mx : ActOrder::sm90a);
        if (mx) {
          EXPECT_TRUE(fits_mx(c)) << to_string(c);
        }
      }
    }
    EXPECT_EQ(config_space(id, sm89).size(), count_gen(w4a8, kGenLdg));  // no wgmma on 8.9
    EXPECT_TRUE(config_space(id, gpu::Arch::from("sm_80")).empty());
    EXPECT_TRUE(config_space(id, gpu::Arch::from("sm_86")).empty());
    EXPECT_FALSE(is_valid(id, Config{4, 1, 1, 1, 0}, sm90));
  }
  EXPECT_FALSE(is_fp8_act(KernelId::gemm_w4a8_nt));
  EXPECT_EQ(config_space(KernelId::quant_act_fp8, sm90).size(), 1u);
  EXPECT_EQ(config_space(KernelId::quant_act_fp8, gpu::Arch::from("gfx942")).size(), 1u);
  EXPECT_EQ(tolerance(KernelId::gemm_w4a8fp8_nt, false, 128).rel, std::ldexp(1.0f, -8));
}

TEST(Config, Fp8ActivationGemmOnAmdIsGfx12Only) {
  // gemm_w4a8fp8_nt on RDNA4 (fp8 WMMA, OCP e4m3): the gen 0 tuples of gemm_w4a8_nt's WMMA body,
  // the same loop with f32 partials for int32 ones (310 on gfx12: the README's table). gfx11
  // has no fp8 WMMA; gfx942's fp8 is FNUZ, not the OCP bytes quant_act_fp8 writes; MXFP4 has no
  // AMD layout. kernels/amd/config_amd.hpp has_fp8_wmma_path.
  for (const char* a : {"gfx1200", "gfx1201"}) {
    const auto arch = gpu::Arch::from(a);
    const auto sp = config_space(KernelId::gemm_w4a8fp8_nt, arch);
    EXPECT_EQ(sp, config_space(KernelId::gemm_w4a8_nt, arch)) << a;
    EXPECT_EQ(sp.size(), 310u) << a;
    for (const auto& c : sp) EXPECT_EQ(c.gen, kGenMmaSync);
    EXPECT_TRUE(config_space(KernelId::gemm_mxfp4a8fp8_nt, arch).empty()) << a;
    EXPECT_TRUE(has_fp8_act_path(arch)) << a;
    EXPECT_FALSE(has_fp8_mma(arch)) << a;  // NVIDIA's fp8 mma.sync: the MXFP4 path's predicate
  }
  for (const char* a : {"gfx1100", "gfx942", "gfx90a", "gfx1030"}) {
    const auto arch = gpu::Arch::from(a);
    for (KernelId id : {KernelId::gemm_w4a8fp8_nt, KernelId::gemm_mxfp4a8fp8_nt})
      EXPECT_TRUE(config_space(id, arch).empty()) << a;
    EXPECT_FALSE(has_fp8_act_path(arch)) << a;
  }
  // The NVIDIA side is unchanged: still no gen 0 body there.
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8fp8_nt, Config{4, 1, 1, 1, 0}, sm90));
  EXPECT_TRUE(
      is_valid(KernelId::gemm_w4a8fp8_nt, Config{4, 1, 1, 1, 0}, gpu::Arch::from("gfx1201")));
}

TEST(Family, EveryKernelIsListedWithItsVariants) {
  const auto all = all_kernels();
  ASSERT_GE(all.size(), 3u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(all[i]), i);
    EXPECT_EQ(parse_kernel(name(all[i])), all[i]);  // every listed kernel has its stable name
  }
  EXPECT_EQ(compile_variants(KernelId::gemm_w4a16_nt).size(), 2u);
  EXPECT_TRUE(compile_variants(KernelId::gemm_w4a16_nt)[1].a_bf16);
  EXPECT_EQ(compile_variants(KernelId::gemm_w4a8_nt).size(), 1u);
}

TEST(Family, NamesAndWorkspace) {
  EXPECT_EQ(name(KernelId::gemm_w4a16_nt), "gemm_w4a16_nt");
  EXPECT_EQ(parse_kernel("gemm_w4a8_nt"), KernelId::gemm_w4a8_nt);
  EXPECT_FALSE(parse_kernel("gemm_w4a4_nt"));
  EXPECT_EQ(workspace_bytes(KernelId::gemm_w4a16_nt, {1, 1, 1, 1, 0}, {3072, 5120, 8}), 0u);
  EXPECT_EQ(workspace_bytes(KernelId::gemm_w4a16_nt, {1, 4, 1, 1, 0}, {3072, 5120, 8}),
            65536u + 4u * 8 * 3072 * 4);
  const auto d = launch_dims(KernelId::gemm_w4a8_nt, {4, 2, 1, 2, 0}, sm90, {3072, 5120, 33});
  EXPECT_EQ(d.grid.x, 24u);
  EXPECT_EQ(d.grid.y, 2u);
  EXPECT_EQ(d.grid.z, 3u);
  EXPECT_EQ(d.block.x, 128u);
  EXPECT_LE(d.shared_bytes, static_cast<unsigned>(kSharedLimit));
}

// SK 2, 4 and 8 compile one body on NVIDIA (R4_SK 0: the factor read from the grid), keyed apart
// by launch_key; SK 1, 16, stream-K and every AMD config keep their own R4_SK.
TEST(Family, SplitKAtLaunchSharesOneBodyForSk248) {
  ASSERT_TRUE(kSplitKAtLaunch);
  auto defines = [](const gpu::CompileRequest& r) {
    std::string d;
    for (const auto& x : r.defines) d += x + " ";
    return d;
  };
  for (int gen : {kGenSm90a, kGenLdg}) {
    Config c{8, 1, 1, 1, 1};
    c.gen = gen;
    c.st = gen == kGenSm90a ? 4 : 2;
    std::map<int, gpu::CompileRequest> req;
    for (int sk : {1, 2, 4, 8, 16}) {
      c.sk = sk;
      ASSERT_TRUE(is_valid(KernelId::gemm_w4a8_nt, c, sm90)) << to_string(c);
      req[sk] = compile_request(KernelId::gemm_w4a8_nt, c, sm90);
    }
    for (int sk : {2, 4, 8}) {
      EXPECT_EQ(defines(req[sk]), defines(req[2])) << sk;
      EXPECT_NE(defines(req[sk]).find("R4_SK=0 "), std::string::npos);
      EXPECT_EQ(req[sk].launch_key, "sk=" + std::to_string(sk));
    }
    for (int sk : {1, 16}) {
      EXPECT_NE(defines(req[sk]).find("R4_SK=" + std::to_string(sk) + " "), std::string::npos);
      EXPECT_TRUE(req[sk].launch_key.empty());
    }
  }
  Config sk132{8, kSm90aStreamK, 1, 1, 1};
  sk132.gen = kGenSm90a;
  sk132.st = 4;
  EXPECT_EQ(sk_define(sk132, true), kSm90aStreamK);
  const Config amd{4, 4, 1, 1, 0};
  EXPECT_EQ(sk_define(amd, false), 4);
  EXPECT_EQ(sk_define(amd, true), 0);
}

// The scale chunks follow the build (-DR4_SM90A_SCALE_CHUNKS, kernels/config.hpp): an sm90a compile
// defines R4G_SCHUNK_ON=1 exactly when the host sizes its shared memory for them, and no other
// generation ever does.
TEST(Family, ScaleChunksDefineFollowsTheBuild) {
  auto has_chunks = [](const gpu::CompileRequest& r) {
    return std::find(r.defines.begin(), r.defines.end(), "R4G_SCHUNK_ON=1") != r.defines.end();
  };
  Config sm90a{8, 1, 4, 2, 1, kGenSm90a, 4};
  Config ldg{4, 2, 1, 1, 0, kGenLdg, 2};
  ASSERT_TRUE(is_valid(KernelId::gemm_w4a8_nt, sm90a, sm90));
  ASSERT_TRUE(is_valid(KernelId::gemm_w4a8_nt, ldg, sm90));
  EXPECT_EQ(has_chunks(compile_request(KernelId::gemm_w4a8_nt, sm90a, sm90)), kSm90aScaleChunks);
  EXPECT_FALSE(has_chunks(compile_request(KernelId::gemm_w4a8_nt, ldg, sm90)));
  // Off (the default build): the stage keeps its 64 scale bytes per tile and there is no ring.
  if (!kSm90aScaleChunks) {
    EXPECT_EQ(sm90a_scale_ring_bytes(KernelId::gemm_w4a8_nt, sm90a), 0);
    EXPECT_EQ(sm90a_stage_bytes(KernelId::gemm_w4a8_nt, sm90a), 8 * 2 * 1088 + 16 * 4 * 128);
  }
}

// Stream-K (SK = kSm90aStreamK): where it is valid, its 1-D grid, and that the workspace's slots
// per tile cover every tile's contributors under the kernel's split of the units
// (kernels/nv/gemm_w4_sm90a.h: block c runs units [c * U / C, (c + 1) * U / C)).
TEST(Config, StreamKGeometry) {
  const Config sk{8, kSm90aStreamK, 4, 1, 1, kGenSm90a, 4};
  EXPECT_TRUE(is_stream_k(sk));
  EXPECT_TRUE(is_valid(KernelId::gemm_w4a8_nt, sk, sm90, {17408, 5120, 64}));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, sk, sm90, {17408, 5120, 48}));  // MB 4 > 3 tiles
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {8, kSm90aStreamK, 2, 1, 1, kGenSm90a, 4}, sm90,
                        {17408, 5120, 64}));  // two M tiles: one per range only
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {8, kSm90aStreamK, 4, 2, 1, kGenSm90a, 4},
                        sm90));  // spills
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {4, kSm90aStreamK, 4, 1, 1, kGenSm90a, 4}, sm90));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {8, kSm90aStreamK, 4, 1, 1, kGenSm90a, 6}, sm90));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {4, kSm90aStreamK, 1, 1, 1, kGenLdg, 2}, sm90));
  const auto d = launch_dims(KernelId::gemm_w4a8_nt, sk, sm90, {17408, 5120, 64});
  EXPECT_EQ(d.grid.x, 132u);  // 136 tiles x 40 groups over at most 132 blocks
  EXPECT_EQ(d.grid.y, 1u);
  EXPECT_EQ(d.grid.z, 1u);
  const auto g = stream_k(sk, 17408, 5120);
  EXPECT_EQ(workspace_bytes(KernelId::gemm_w4a8_nt, sk, {17408, 5120, 64}),
            65536u + static_cast<std::size_t>(g.slots * 136 * 64 * 128 * 4));
  // Fewer units than blocks: one block per unit.
  EXPECT_EQ(stream_k(sk, 256, 256).blocks, 4);  // 2 tiles x 2 groups
  for (std::int64_t n : {128, 256, 1280, 3072, 5120, 17408, 28672})
    for (std::int64_t k : {128, 640, 2048, 5120, 8704, 14336}) {
      const auto s = stream_k(sk, n, k);
      const std::int64_t G = k / kGroup;
      std::vector<int> contributors(static_cast<std::size_t>(s.tiles), 0);
      for (std::int64_t c = 0; c < s.blocks; ++c) {
        const std::int64_t b = c * s.units / s.blocks, e = (c + 1) * s.units / s.blocks;
        ASSERT_LT(b, e) << n << "x" << k;  // every block has work
        for (std::int64_t t = b / G; t <= (e - 1) / G; ++t) ++contributors[t];
      }
      for (int nc : contributors) ASSERT_LE(nc, s.slots) << n << "x" << k;
    }
}

// Balanced grid (SK = kSm90aBalanced): where it is valid, its 1-D grid and workspace, and that the
// kernel's block map (kernels/nv/gemm_w4_sm90a.h r4g_bal, mirrored here) gives every tile exactly
// its whole K once: one whole-K block, or S splits whose 128-K group ranges tile [0, G).
TEST(Config, BalancedGeometry) {
  const Config bal{4, kSm90aBalanced, 1, 1, 1, kGenSm90a, 4};
  EXPECT_TRUE(is_balanced(bal));
  EXPECT_FALSE(is_stream_k(bal));
  EXPECT_EQ(sk_define(bal, true), kSm90aBalanced);
  EXPECT_TRUE(is_valid(KernelId::gemm_w4a8_nt, bal, sm90, {17408, 5120, 16}));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, bal, sm90, {17408, 5120, 17}));  // two M tiles
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, bal, sm90, {5120, 5120, 1}));  // 80 tiles: one wave
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, bal, sm90, {16896, 5120, 1}));  // 264: no remainder
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {4, kSm90aBalanced, 1, 1, 1, kGenLdg, 2}, sm90));
  // 128-row tiles: measured slower (kernels/config.hpp is_valid_sm90a)
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {8, kSm90aBalanced, 1, 1, 1, kGenSm90a, 4}, sm90));
  EXPECT_FALSE(is_valid(KernelId::gemm_w4a8_nt, {4, kSm90aBalanced, 1, 2, 1, kGenSm90a, 4}, sm90));
  const auto b = balanced(bal, 17408, 5120);
  EXPECT_EQ(b.tiles, 272);
  EXPECT_EQ(b.whole, 264);
  EXPECT_EQ(b.rest, 8);
  EXPECT_EQ(b.splits, 16);
  EXPECT_EQ(b.blocks, 264 + 8 * 16);
  const auto d = launch_dims(KernelId::gemm_w4a8_nt, bal, sm90, {17408, 5120, 16});
  EXPECT_EQ(d.grid.x, 392u);
  EXPECT_EQ(d.grid.y, 1u);
  EXPECT_EQ(d.grid.z, 1u);
  EXPECT_EQ(workspace_bytes(KernelId::gemm_w4a8_nt, bal, {17408, 5120, 16}),
            65536u + static_cast<std::size_t>(8 * 16) * 16 * 64 * 4);
  // Splits are capped by the groups: 8 tiles left, 16 splits, but K = 1024 has 8 groups.
  EXPECT_EQ(balanced(bal, 17408, 1024).splits, 8);
  for (std::int64_t n : {8464, 17408, 28672, 53248})
    for (std::int64_t k : {256, 2048, 5120, 14336})
      for (const Config& c : {bal, Config{4, kSm90aBalanced, 2, 1, 0, kGenSm90a, 8}}) {
        const auto g = balanced(c, n, k);
        const std::int64_t G = k / kGroup;
        std::vector<std::int64_t> groups(static_cast<std::size_t>(g.tiles), 0);
        for (std::int64_t blk = 0; blk < g.blocks; ++blk) {
          // r4g_bal: the whole blocks first, then the R * S split ones.
          std::int64_t tile = blk, split = 0, count = 1;
          if (blk >= g.whole) {
            const std::int64_t S = (g.blocks - g.whole) / (g.tiles - g.whole), j = blk - g.whole;
            tile = g.whole + j / S, split = j % S, count = S;
            ASSERT_LT(j, g.rest * g.splits);  // its workspace slot exists
          }
          const std::int64_t b0 = split * G / count, b1 = (split + 1) * G / count;
          ASSERT_LT(b0, b1) << n << "x" << k;  // every block has a group
          groups[static_cast<std::size_t>(tile)] += b1 - b0;
        }
        for (std::int64_t got : groups) ASSERT_EQ(got, G) << n << "x" << k;
        EXPECT_LE(g.blocks, (g.tiles / kSm90aBalancedSms + 1) * kSm90aBalancedSms);
      }
}

}  // namespace
}  // namespace r4::kernels
