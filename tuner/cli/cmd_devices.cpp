// r4tune devices: what GPUs are present, through every backend built in.
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "tuner/cli/command.hpp"
#include "tuner/cli/options.hpp"
#include "tuner/gpu/backend.hpp"
#include "tuner/gpu/device_json.hpp"

namespace r4::cli {

int run_devices(std::span<const std::string> args) {
  po::options_description desc("options");
  desc.add_options()("json", "print JSON instead of text");
  po::variables_map vm;
  if (!parse(args, "r4tune devices [--json]", desc, {}, vm)) return ok;
  const bool json = vm.count("json") > 0;

  nlohmann::json out = {{"devices", nlohmann::json::array()},
                        {"backends", nlohmann::json::array()}};
  std::vector<gpu::DeviceInfo> found;
  std::vector<std::unique_ptr<gpu::Backend>> backends;
  backends.push_back(gpu::make_cuda_backend());
  if (auto hip = gpu::make_hip_backend()) backends.push_back(std::move(hip));
  for (auto& b : backends) {
    const int n = b->device_count();
    out["backends"].push_back(
        {{"vendor", gpu::to_string(b->vendor())}, {"status", b->status()}, {"devices", n}});
    for (int i = 0; i < n; ++i) found.push_back(b->device_info(i));
  }
  for (const auto& d : found) out["devices"].push_back(gpu::to_json(d));

  if (json) {
    std::cout << out.dump(2) << "\n";
    return ok;
  }
  if (found.empty()) {
    fmt::print("no GPU found\n");
    for (auto& b : out["backends"])
      fmt::print("  {}: {}\n", b["vendor"].get<std::string>(), b["status"].get<std::string>());
    fmt::print(
        "r4tune can still compile and prune without a GPU (r4tune compile, sweep "
        "--compile-only)\n");
    return ok;
  }
  for (const auto& d : found) {
    fmt::print("[{}] {} ({}, {})\n", d.index, d.name, gpu::to_string(d.vendor), d.arch.name);
    fmt::print("    multiprocessors   {}\n", d.multiprocessors);
    fmt::print("    L2                {:.1f} MiB\n", static_cast<double>(d.l2_bytes) / (1 << 20));
    fmt::print("    last-level cache  {:.1f} MiB\n", static_cast<double>(d.llc_bytes) / (1 << 20));
    fmt::print("    memory            {:.1f} GiB\n",
               static_cast<double>(d.memory_bytes) / (1 << 30));
    fmt::print("    SM clock (peak)   {} MHz\n", d.sm_clock_khz / 1000);
    fmt::print("    memory clock      {} MHz, {}-bit bus\n", d.memory_clock_khz / 1000,
               d.memory_bus_bits);
    fmt::print("    shared per block  {} KiB (opt-in)\n", d.max_shared_per_block / 1024);
    fmt::print("    shared per SM     {} KiB, {} B reserved per block\n",
               d.shared_per_multiprocessor / 1024, d.reserved_shared_per_block);
    fmt::print("    PCI bus           {}\n", d.pci_bus_id);
    fmt::print("    driver            {}\n", d.driver_version);
    fmt::print("    compiler          {}\n", d.runtime_version);
  }
  return ok;
}

}  // namespace r4::cli
