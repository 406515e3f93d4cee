// quant/layout/gfx12.h under a run-time compiler: NVRTC compiles a probe kernel that calls every
// function of the header (no device needed; skipped when libnvrtc is absent). hipRTC is not run
// here: on the Debian 12 build machine its library aborts on every compile, even an empty kernel
// (checked 2026-11-30 with `r4tune compile trivial.cu --arch gfx1201`); the header's HIP path
// was checked with clang 14 -x hip --cuda-device-only (gfx1030) instead, see docs/QUANT.md.
#include <gtest/gtest.h>

#include "tuner/gpu/arch.hpp"
#include "tuner/gpu/backend.hpp"

// Under -DR4_SANITIZE=ON, LeakSanitizer reports one 72704-byte block allocated inside libnvrtc
// (dlopened by the GPU layer; the frames show as "<unknown module>", so a suppression by library
// name cannot match). It is the vendor library's, not ours, and this binary runs nothing else, so
// leak checking is off for it alone. ASan and UBSan stay on.
extern "C" const char* __lsan_default_options() {
  return "detect_leaks=0";
}

namespace {

constexpr const char* kProbe = R"(
#include "quant/layout/gfx12.h"
extern "C" __global__ void gfx12_probe(long long* out, long long n, long long k, long long K) {
  out[0] = r4::layout::gfx12::wq_dword(n, k, K);
  out[1] = r4::layout::gfx12::wq_nibble(k);
  out[2] = r4::layout::gfx12::wsz_index(n, k / 128, K / 128);
  out[3] = r4::layout::gfx12::koff(3) + r4::layout::gfx12::block_k(1, 2, 3);
}
)";

TEST(LayoutGfx12Rtc, CompilesUnderNvrtc) {
  auto backend = r4::gpu::make_backend(r4::gpu::Vendor::nvidia);
  try {
    (void)backend->compiler_version();
  } catch (const std::exception& e) {
    GTEST_SKIP() << "NVRTC not available: " << e.what();
  }
  r4::gpu::CompileRequest req;
  req.source = kProbe;
  req.source_name = "gfx12_probe.cu";
  req.arch = r4::gpu::Arch::from("sm_90");
  req.include_dirs.push_back(R4_SOURCE_ROOT);
  const auto res = backend->compile(req);
  EXPECT_TRUE(res.ok) << res.log;
}

}  // namespace
