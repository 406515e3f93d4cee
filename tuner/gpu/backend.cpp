#include "tuner/gpu/backend.hpp"

#include <cstdlib>
#include <string>

#include "tuner/gpu/clang_hip.hpp"

namespace r4::gpu {

#ifndef R4_HAVE_HIP
std::unique_ptr<Backend> make_hip_backend() {
  return nullptr;
}
bool hiprtc_supports(const Arch&) {
  return false;
}
#endif

std::unique_ptr<Backend> make_backend(Vendor vendor) {
  if (vendor == Vendor::nvidia) return make_cuda_backend();
  auto b = make_hip_backend();
  if (!b) throw Error("this r4tune was built without the HIP backend (R4_BUILD_HIP=OFF)");
  return b;
}

std::unique_ptr<Backend> make_backend(const Arch& arch) {
  if (arch.vendor == Vendor::nvidia) return make_cuda_backend();
  const char* forced = std::getenv("R4TUNE_AMD_COMPILER");
  const std::string choice = forced ? forced : "";
  if (!choice.empty() && choice != "clang" && choice != "hiprtc")
    throw Error("R4TUNE_AMD_COMPILER must be 'clang' or 'hiprtc', not '" + choice + "'");
  auto hip = make_hip_backend();
  if (choice == "hiprtc") {
    if (!hip) throw Error("R4TUNE_AMD_COMPILER=hiprtc, but this r4tune has no HIP backend");
    return hip;
  }
  if (choice.empty() && hip && hiprtc_supports(arch)) return hip;
  return make_clang_hip_backend(std::move(hip));
}

}  // namespace r4::gpu
