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
          {"pci_bus_id", d.pci_bus_id},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

}  // namespace r4::gpu
