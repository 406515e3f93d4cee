#include "tuner/gpu/device_json.hpp"

namespace r4::gpu {

nlohmann::json to_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"vendor", to_string(d.vendor)},
          {"name", d.name},
          {"arch", d.arch.name},
          {"multiprocessors", d.multiprocessors},
          {"l2_bytes", d.l2_bytes},
          {"llc_bytes", d.llc_bytes},
          {"memory_bytes", d.memory_bytes},
          {"sm_clock_khz", d.sm_clock_khz},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"max_shared_per_block", d.max_shared_per_block},
          {"shared_per_multiprocessor", d.shared_per_multiprocessor},
          {"reserved_shared_per_block", d.reserved_shared_per_block},
          {"pci_bus_id", d.pci_bus_id},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

DeviceInfo device_from_json(const nlohmann::json& j) {
  DeviceInfo d;
  d.index = j.value("index", 0);
  d.vendor = j.value("vendor", std::string("nvidia")) == "amd" ? Vendor::amd : Vendor::nvidia;
  d.name = j.at("name").get<std::string>();
  d.arch = Arch::parse(j.at("arch").get<std::string>()).value_or(Arch{});
  d.multiprocessors = j.value("multiprocessors", 0);
  d.l2_bytes = j.value("l2_bytes", std::int64_t{0});
  d.llc_bytes = j.value("llc_bytes", std::int64_t{0});
  d.memory_bytes = j.value("memory_bytes", std::int64_t{0});
  d.sm_clock_khz = j.value("sm_clock_khz", 0);
  d.memory_clock_khz = j.value("memory_clock_khz", 0);
  d.memory_bus_bits = j.value("memory_bus_bits", 0);
  d.max_shared_per_block = j.value("max_shared_per_block", 0);
  d.shared_per_multiprocessor = j.value("shared_per_multiprocessor", 0);
  d.reserved_shared_per_block = j.value("reserved_shared_per_block", 0);
  d.pci_bus_id = j.value("pci_bus_id", std::string());
  d.driver_version = j.value("driver_version", std::string());
  d.runtime_version = j.value("runtime_version", std::string());
  return d;
}

}  // namespace r4::gpu
