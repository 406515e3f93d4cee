#include "r4d/status.hpp"

#include "r4d/pdl.hpp"

namespace r4d {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::not_initialised:
      return "not initialised: call r4d::init(device) (or register_workspace) before launching";
    case Status::unknown_shape:
      return "unknown shape: (N, K) has no rows in the table";
    case Status::m_out_of_range:
      return "M out of range: outside 1..64 or above the last band";
    case Status::invalid_config:
      return "invalid config: kernels/config.hpp is_valid() refuses it";
    case Status::not_compiled:
      return "config not compiled into this r4d build";
    case Status::no_kernels:
      return "this r4d build has no kernels (R4D_BUILD_KERNELS=OFF)";
    case Status::bad_argument:
      return "bad argument: null or misaligned pointer";
    case Status::workspace_too_small:
      return "registered workspace too small for this launch";
    case Status::launch_failed:
      return "the CUDA runtime refused the launch";
    case Status::pdl_unsupported:
      return "PDL asked (Pdl::on) on a device without it (compute capability < 9.0, or r4d's "
             "kernels not compiled for sm_90+)";
  }
  return "unknown status";
}

std::string_view to_string(Pdl p) {
  switch (p) {
    case Pdl::automatic:
      return "automatic";
    case Pdl::off:
      return "off";
    case Pdl::on:
      return "on";
  }
  return "unknown";
}

}  // namespace r4d
