#include "tuner/tune/ranks.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace r4::tune {

using nlohmann::json;

std::string pack(const json& j) {
  const auto bytes = json::to_cbor(j);
  return std::string(bytes.begin(), bytes.end());
}

json unpack(const std::string& bytes) {
  return json::from_cbor(bytes.begin(), bytes.end());
}

int agree(mpi::World& world, int code, const std::string& message) {
  if (!world.is_mpi()) {
    if (!message.empty()) fmt::print(stderr, "r4tune sweep: {}\n", message);
    return code;
  }
  const auto all =
      world.allgather(pack({{"code", code}, {"message", message}, {"host", world.host()}}));
  int worst = 0;
  std::string first;
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto j = unpack(all[r]);
    worst = std::max(worst, j.at("code").get<int>());
    const std::string m = j.at("message");
    if (!world.root() || m.empty()) continue;
    // The same message from every rank (a bad spec, say) is printed once.
    if (r > 0 && m == first) continue;
    if (first.empty()) first = m;
    fmt::print(stderr, "r4tune sweep: rank {} ({}): {}\n", r, j.at("host").get<std::string>(), m);
  }
  return worst;
}

json share(mpi::World& world, const json& from_root) {
  if (!world.is_mpi()) return from_root;
  std::string bytes = world.root() ? pack(from_root) : std::string();
  world.bcast(bytes, 0);
  return unpack(bytes);
}

}  // namespace r4::tune
