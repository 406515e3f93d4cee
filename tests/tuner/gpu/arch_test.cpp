#include "tuner/gpu/arch.hpp"

#include <gtest/gtest.h>

namespace r4::gpu {

TEST(Arch, ParsesNvidiaTargets) {
  auto a = Arch::parse("sm_90");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->vendor, Vendor::nvidia);
  EXPECT_EQ(a->major, 9);
  EXPECT_EQ(a->minor, 0);
  EXPECT_TRUE(has_mma_sync(*a));
  // A compute-capability 9.0 device runs sm_90a code (wgmma): the arch-specific target is how such
  // code is compiled, not a different device.
  EXPECT_TRUE(has_wgmma(*a));
  EXPECT_TRUE(has_wgmma(Arch::from("sm_90a")));
  EXPECT_FALSE(has_wgmma(Arch::from("sm_89")));
  EXPECT_FALSE(has_wgmma(Arch::from("sm_100")));
  EXPECT_TRUE(has_pdl(*a));
  EXPECT_FALSE(has_pdl(Arch::from("sm_89")));
  EXPECT_FALSE(has_pdl(Arch::from("gfx1201")));
  EXPECT_EQ(wave_size(*a), 32);
  EXPECT_EQ(Arch::from("sm_89").major, 8);
}

TEST(Arch, ParsesAmdTargets) {
  auto a = Arch::from("gfx1201");
  EXPECT_EQ(a.vendor, Vendor::amd);
  EXPECT_EQ(a.major, 12);
  EXPECT_EQ(a.minor, 0);
  EXPECT_TRUE(has_wmma_gfx12(a));
  EXPECT_FALSE(has_wmma_gfx11(a));
  EXPECT_EQ(wave_size(a), 32);
  EXPECT_TRUE(has_wmma_gfx11(Arch::from("gfx1100")));
  const auto cdna = Arch::from("gfx90a");
  EXPECT_EQ(cdna.major, 9);
  EXPECT_EQ(wave_size(cdna), 64);
  EXPECT_FALSE(has_mma_sync(cdna));
}

TEST(Arch, RefusesUnknownTargetsNamingTheSupportedOnes) {
  EXPECT_FALSE(Arch::parse("sm_"));
  EXPECT_FALSE(Arch::parse("gfx"));
  EXPECT_FALSE(Arch::parse("compute_90"));
  EXPECT_FALSE(Arch::parse("sm_9x"));
  try {
    (void)Arch::from("sm_91");
    FAIL() << "sm_91 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sm_91"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sm_90"), std::string::npos);
  }
}

}  // namespace r4::gpu

namespace r4::gpu {

TEST(Arch, Mi300IsWave64MfmaWithSixtyFourKiBOfLds) {
  const auto a = Arch::from("gfx942");
  EXPECT_EQ(a.major, 9);
  EXPECT_EQ(wave_size(a), 64);
  EXPECT_TRUE(has_mfma_gfx942(a));
  EXPECT_FALSE(has_wmma_gfx11(a) || has_wmma_gfx12(a));
  EXPECT_EQ(lds_bytes_per_workgroup(a), 64 * 1024);
  EXPECT_FALSE(has_mfma_gfx942(Arch::from("gfx90a")));
}

TEST(Arch, Gfx950IsRefusedWithAReasonAndTheKnownTargets) {
  try {
    (void)Arch::from("gfx950");
    FAIL() << "gfx950 accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gfx950"), std::string::npos) << what;
    EXPECT_NE(what.find("clang-19 does not know"), std::string::npos) << what;
    EXPECT_NE(what.find("known targets: "), std::string::npos) << what;
    EXPECT_NE(what.find("gfx942"), std::string::npos) << what;
    EXPECT_NE(what.find("gfx1201"), std::string::npos) << what;
  }
  EXPECT_THROW((void)Arch::from("gfx9999"), std::invalid_argument);
}

}  // namespace r4::gpu
