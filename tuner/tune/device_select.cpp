#include "tuner/tune/device_select.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

namespace r4::tune {

DeviceChoice parse_devices(const std::string& text) {
  DeviceChoice c;
  if (text == "all") {
    c.all = true;
    return c;
  }
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    std::size_t used = 0;
    int v = -1;
    try {
      v = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v < 0)
      throw std::invalid_argument(fmt::format(
          "--devices {}: '{}' is not a GPU index (give 'all' or indices like 0,2,3)", text, part));
    if (std::find(c.ordinals.begin(), c.ordinals.end(), v) != c.ordinals.end())
      throw std::invalid_argument(fmt::format("--devices {}: GPU {} is listed twice", text, v));
    c.ordinals.push_back(v);
  }
  if (c.ordinals.empty())
    throw std::invalid_argument(
        fmt::format("--devices '{}': give 'all' or indices like 0,2,3", text));
  return c;
}

std::string describe_gpu(const std::string& host, const gpu::DeviceInfo& d) {
  return fmt::format("host {} GPU {}: {} ({}, {} SMs{}{})", host, d.index, d.name, d.arch.name,
                     d.multiprocessors, d.pci_bus_id.empty() ? "" : ", PCI " + d.pci_bus_id,
                     d.driver_version.empty() ? "" : ", driver " + d.driver_version);
}

Selection select_devices(const DeviceChoice& choice, const std::vector<gpu::DeviceInfo>& present,
                         const std::string& host, int local_rank, int local_size) {
  Selection s;
  std::vector<int> chosen;
  if (choice.all) {
    for (const auto& d : present) chosen.push_back(d.index);
  } else {
    for (int o : choice.ordinals) {
      const bool there = std::any_of(present.begin(), present.end(),
                                     [&](const gpu::DeviceInfo& d) { return d.index == o; });
      if (!there) {
        std::string have;
        for (const auto& d : present) have += "\n  " + describe_gpu(host, d);
        s.error =
            present.empty()
                ? fmt::format("--devices: GPU {} is not on host {}, which has no GPU", o, host)
                : fmt::format("--devices: GPU {} is not on host {}, which has {} GPU{}:{}", o, host,
                              present.size(), present.size() == 1 ? "" : "s", have);
        return s;
      }
      chosen.push_back(o);
    }
  }
  if (chosen.empty()) {
    s.error = fmt::format("no GPU to time on: host {} has none", host);
    return s;
  }
  local_size = std::max(1, local_size);
  if (local_size <= static_cast<int>(chosen.size())) {
    for (std::size_t i = static_cast<std::size_t>(local_rank); i < chosen.size();
         i += static_cast<std::size_t>(local_size))
      s.ordinals.push_back(chosen[i]);
  } else {
    s.ordinals.push_back(chosen[static_cast<std::size_t>(local_rank) % chosen.size()]);
    s.shared = true;
  }
  return s;
}

std::string model_key(const gpu::DeviceInfo& d) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", d.name, gpu::to_string(d.vendor),
                     d.arch.name, d.multiprocessors, d.l2_bytes, d.llc_bytes, d.memory_bytes,
                     d.sm_clock_khz / 1000, d.memory_clock_khz / 1000, d.memory_bus_bits,
                     d.driver_version, d.runtime_version);
}

}  // namespace r4::tune
