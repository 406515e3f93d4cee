// Every launcher and lookup that can refuse says why with a Status; nothing is guessed.
#pragma once

#include <string_view>

namespace r4d {

enum class Status {
  ok,
  not_initialised,      // r4d::init(device) (or register_workspace) was not called for the device
  unknown_shape,        // (N, K) has no rows in the table: declined, never guessed
  m_out_of_range,       // M outside 1..GEMM_W4_MAX_M, or above the table's last band
  invalid_config,       // kernels/config.hpp is_valid() refuses (config, arch, shape)
  not_compiled,         // valid, but not one of the configs compiled into this build
  no_kernels,           // this build has no kernels (R4D_BUILD_KERNELS=OFF)
  bad_argument,         // null or misaligned pointer
  workspace_too_small,  // split-K needs more than the registered workspace holds
  launch_failed,        // the CUDA runtime refused the launch (see cudaGetLastError)
  pdl_unsupported,      // Pdl::on asked on a device without PDL (r4d::pdl_supported is false)
};

[[nodiscard]] std::string_view to_string(Status s);

}  // namespace r4d
