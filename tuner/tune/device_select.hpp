// Which GPUs a sweep times on (`--devices all|0,2,3`), and how they form device groups: the GPUs
// of one model (one identity, as the database's device fingerprint has it) are one group, timed
// as one run. Mixed models are refused unless --allow-mixed, which gives each model its own run
// and so its own winners. Pure functions of what the workers report, so tests need no GPU.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tuner/gpu/types.hpp"

namespace r4::tune {

struct DeviceChoice {
  bool all = false;
  std::vector<int> ordinals;  // when not all: the listed indices, in the order given
};

// "all" or a comma-separated list of distinct indices >= 0. Throws std::invalid_argument with a
// message naming the bad part.
[[nodiscard]] DeviceChoice parse_devices(const std::string& text);

// The GPUs this process drives on its host. `present` is the host's GPUs as a worker reports
// them; `local_rank` of `local_size` is this process's place among the processes (MPI ranks) on
// the host: the chosen GPUs are dealt round-robin to them, and when there are more processes
// than GPUs, process r drives GPU r mod n (shared: both time on it, a functional check only).
struct Selection {
  std::vector<int> ordinals;
  bool shared = false;  // another process on this host drives the same GPU
  std::string error;    // non-empty: nothing selected; exit code 4 (a chosen GPU is not there)
};
[[nodiscard]] Selection select_devices(const DeviceChoice& choice,
                                       const std::vector<gpu::DeviceInfo>& present,
                                       const std::string& host, int local_rank, int local_size);

// A GPU model's identity: every field the database's device fingerprint hashes that the device
// reports (name, vendor, arch, multiprocessors, caches, memory, clocks, bus, driver, runtime).
[[nodiscard]] std::string model_key(const gpu::DeviceInfo& d);

// One line per GPU for messages: "host vm GPU 0: NVIDIA H200 (sm_90, 132 SMs, driver ...)".
[[nodiscard]] std::string describe_gpu(const std::string& host, const gpu::DeviceInfo& d);

}  // namespace r4::tune
