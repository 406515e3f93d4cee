// tuner/tune/hung_set.hpp: the timed-out configs of a run, shared by the GPU lanes of a device
// group. What a lane records, every other lane holding the same set sees (the lanes' copies of a
// SweepContext copy the shared_ptr); the first place a config hung is the one kept; adds from
// several threads at once all land (the lanes race on their own threads).
#include "tuner/tune/hung_set.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace r4::tune {
namespace {

TEST(HungSet, TheFirstPlaceAConfigHungIsKept) {
  HungSet s;
  EXPECT_FALSE(s.find(7).has_value());
  s.add(7, "N=3072 K=5120 M=16");
  s.add(7, "N=5120 K=2048 M=1");
  ASSERT_TRUE(s.find(7).has_value());
  EXPECT_EQ(*s.find(7), "N=3072 K=5120 M=16");
  EXPECT_EQ(s.items().size(), 1u);
}

TEST(HungSet, LanesHoldingOneSetSeeEachOthersTimeouts) {
  const auto shared = std::make_shared<HungSet>();
  constexpr int kLanes = 4, kPerLane = 200;
  std::vector<std::thread> lanes;
  for (int l = 0; l < kLanes; ++l)
    lanes.emplace_back([copy = shared, l] {  // each lane's context holds its own copy of the ptr
      for (int i = 0; i < kPerLane; ++i) copy->add(l * kPerLane + i, "lane " + std::to_string(l));
    });
  for (auto& t : lanes) t.join();
  EXPECT_EQ(shared->items().size(), static_cast<std::size_t>(kLanes * kPerLane));
  for (int l = 0; l < kLanes; ++l)
    EXPECT_EQ(*shared->find(l * kPerLane), "lane " + std::to_string(l));
  // A set of another device group is another object: nothing crosses.
  HungSet other;
  EXPECT_FALSE(other.find(0).has_value());
}

}  // namespace
}  // namespace r4::tune
