#include "tuner/gpu/backend.hpp"

namespace r4::gpu {

#ifndef R4_HAVE_HIP
std::unique_ptr<Backend> make_hip_backend() {
  return nullptr;
}
#endif

std::unique_ptr<Backend> make_backend(Vendor vendor) {
  if (vendor == Vendor::nvidia) return make_cuda_backend();
  auto b = make_hip_backend();
  if (!b) throw Error("this r4tune was built without the HIP backend (R4_BUILD_HIP=OFF)");
  return b;
}

}  // namespace r4::gpu
