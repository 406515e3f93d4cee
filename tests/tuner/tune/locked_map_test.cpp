// tuner/tune/locked_map.hpp: set overwrites, add keeps the first value, items come in key order,
// and writes from several threads at once all land (the GPU lanes of a device group share one).
#include "tuner/tune/locked_map.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace r4::tune {
namespace {

TEST(LockedMap, SetOverwritesAndAddKeepsTheFirst) {
  LockedMap<int, std::string> m;
  EXPECT_FALSE(m.find(1).has_value());
  m.set(1, "a");
  m.set(1, "b");
  EXPECT_EQ(m.find(1).value(), "b");
  m.add(2, "first");
  m.add(2, "second");
  EXPECT_EQ(m.find(2).value(), "first");
  m.set(2, "set wins");
  EXPECT_EQ(m.find(2).value(), "set wins");
}

TEST(LockedMap, ItemsAreInKeyOrder) {
  LockedMap<int, bool> m;
  m.set(3, true);
  m.set(1, false);
  m.add(2, true);
  const auto items = m.items();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].first, 1);
  EXPECT_EQ(items[1].first, 2);
  EXPECT_EQ(items[2].first, 3);
  EXPECT_FALSE(items[0].second);
}

TEST(LockedMap, ConcurrentWritesAllLand) {
  LockedMap<int, int> m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&m, t] {
      for (int i = 0; i < 500; ++i) {
        m.set(4 * i + t, i);
        m.add(4 * i + t, -1);  // never replaces the set above
      }
    });
  for (auto& th : threads) th.join();
  const auto items = m.items();
  ASSERT_EQ(items.size(), 2000u);
  for (const auto& [k, v] : items) EXPECT_EQ(v, k / 4);
}

}  // namespace
}  // namespace r4::tune
