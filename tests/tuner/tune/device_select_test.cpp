// --devices and device groups (tuner/tune/device_select.hpp, host_dispatch.hpp's group_gpus):
// which GPUs a process drives, how the ranks of one host share them, and mixed models refused
// unless allowed. No GPU needed: the device lists are what a worker would report.
#include "tuner/tune/device_select.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tuner/tune/host_dispatch.hpp"

namespace r4::tune {
namespace {

gpu::DeviceInfo gpu_at(int index, const std::string& name = "NVIDIA H200") {
  gpu::DeviceInfo d;
  d.index = index;
  d.name = name;
  d.arch = gpu::Arch::from("sm_90");
  d.multiprocessors = 132;
  d.pci_bus_id = "0000:0" + std::to_string(index + 1) + ":00.0";
  return d;
}

std::vector<gpu::DeviceInfo> host_of(int n) {
  std::vector<gpu::DeviceInfo> v;
  for (int i = 0; i < n; ++i) v.push_back(gpu_at(i));
  return v;
}

}  // namespace

TEST(DeviceSelect, ParsesAllAndListsAndRefusesTheRest) {
  EXPECT_TRUE(parse_devices("all").all);
  EXPECT_EQ(parse_devices("0,2,3").ordinals, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(parse_devices("5").ordinals, (std::vector<int>{5}));
  for (const char* bad : {"", "x", "0,,1", "-1", "1,1", "0,a", "2.5"})
    EXPECT_THROW((void)parse_devices(bad), std::invalid_argument) << bad;
  try {
    (void)parse_devices("0,0");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
  }
}

TEST(DeviceSelect, AGpuTheHostLacksIsNamedWithWhatItHas) {
  const auto s = select_devices(parse_devices("7"), host_of(1), "node1", 0, 1);
  EXPECT_TRUE(s.ordinals.empty());
  EXPECT_NE(s.error.find("GPU 7 is not on host node1, which has 1 GPU"), std::string::npos)
      << s.error;
  EXPECT_NE(s.error.find("NVIDIA H200"), std::string::npos) << s.error;
  EXPECT_FALSE(select_devices(DeviceChoice{true, {}}, {}, "node1", 0, 1).error.empty());
}

TEST(DeviceSelect, RanksOfOneHostShareItsGpusOut) {
  const DeviceChoice all{true, {}};
  // One process: every GPU, or the listed ones in order.
  EXPECT_EQ(select_devices(all, host_of(4), "h", 0, 1).ordinals, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(select_devices(parse_devices("3,1"), host_of(4), "h", 0, 1).ordinals,
            (std::vector<int>{3, 1}));
  // Two ranks on a 4-GPU host: round-robin, nothing shared.
  EXPECT_EQ(select_devices(all, host_of(4), "h", 0, 2).ordinals, (std::vector<int>{0, 2}));
  EXPECT_EQ(select_devices(all, host_of(4), "h", 1, 2).ordinals, (std::vector<int>{1, 3}));
  // Two ranks on a 1-GPU host (the H200 check): both time on GPU 0, said to be shared.
  for (int r = 0; r < 2; ++r) {
    const auto s = select_devices(all, host_of(1), "h", r, 2);
    EXPECT_EQ(s.ordinals, (std::vector<int>{0}));
    EXPECT_TRUE(s.shared);
  }
}

TEST(DeviceSelect, MixedModelsAreRefusedUnlessAllowedThenOneGroupEach) {
  std::vector<GpuSlot> slots;
  for (int i = 0; i < 3; ++i) {
    GpuSlot s;
    s.host = "h";
    s.info = gpu_at(i, i == 1 ? "NVIDIA H100" : "NVIDIA H200");
    slots.push_back(s);
  }
  const auto refused = group_gpus(slots, false);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.error.find("not all one model"), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("--allow-mixed"), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("NVIDIA H100"), std::string::npos) << refused.error;
  const auto mixed = group_gpus(slots, true);
  EXPECT_EQ(mixed.exit_code, 0);
  ASSERT_EQ(mixed.groups.size(), 2u);
  EXPECT_EQ(mixed.groups[0].name, "NVIDIA H200");
  EXPECT_EQ(mixed.gpus[0].group, 0u);
  EXPECT_EQ(mixed.gpus[1].group, 1u);
  EXPECT_EQ(mixed.gpus[2].group, 0u);
  // One model: one group; a different driver is a different model (the device fingerprint's
  // rule: results are not silently pooled across a driver update).
  slots[1].info = gpu_at(1);
  EXPECT_EQ(group_gpus(slots, false).groups.size(), 1u);
  slots[1].info.driver_version = "other";
  EXPECT_EQ(group_gpus(slots, false).exit_code, 2);
}

}  // namespace r4::tune
