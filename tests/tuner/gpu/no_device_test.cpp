// The no-device path: r4tune must start, and say why, where there is no GPU or no driver.
#include <gtest/gtest.h>

#include "tuner/gpu/backend.hpp"

namespace r4::gpu {

TEST(NoDevice, BackendsStartAndExplainThemselves) {
  auto cuda = make_cuda_backend();
  EXPECT_GE(cuda->device_count(), 0);
  EXPECT_FALSE(cuda->status().empty());
  if (auto hip = make_hip_backend()) {
    EXPECT_GE(hip->device_count(), 0);
    EXPECT_FALSE(hip->status().empty());
  }
}

TEST(NoDevice, AskingForAMissingDeviceThrowsANamedError) {
  auto cuda = make_cuda_backend();
  const int n = cuda->device_count();
  try {
    (void)cuda->device_info(n + 7);
    FAIL() << "device " << n + 7 << " reported";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.find("cuDeviceGet") != std::string::npos ||
                what.find("no CUDA driver") != std::string::npos)
        << what;
  }
}

TEST(NoDevice, HipWithoutTheBackendIsAnError) {
  if (make_hip_backend()) GTEST_SKIP() << "HIP backend built";
  EXPECT_THROW((void)make_backend(Vendor::amd), Error);
}

}  // namespace r4::gpu
