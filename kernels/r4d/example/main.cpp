// Example consumer of an installed r4d: asks select() and config_for() what the seeds ask.
// Needs no GPU (it launches nothing).
#include <cstdio>
#include <string>

#include <r4d/r4d.hpp>

int main() {
  const auto name = r4d::select("gemm_nt", 64, 5120, 5120, "w4a16");
  std::printf("select(gemm_nt, M=64, K=5120, N=5120, w4a16) = %s\n",
              name ? std::string(*name).c_str() : "None");
  std::printf("GEMM_W4_GROUP %d, GEMM_W4_MAX_M %d, GEMM_W4A8_GROUP %d, a8_m %d\n",
              r4d::GEMM_W4_GROUP, r4d::GEMM_W4_MAX_M, r4d::GEMM_W4A8_GROUP, r4d::a8_m());
  const int shapes[][2] = {{3072, 5120}, {5120, 2048}, {17408, 5120}, {5120, 8704},
                           {1280, 5120}, {256, 5120},  {5120, 25600}};
  for (const auto& s : shapes)
    for (int m : {8, 64}) {
      const auto c = r4d::config_for(s[0], s[1], m);
      if (c)  // "(WV, SK, MB, NPW, NT)", or "sm90a(WV, SK, MB, NPW, NT, ST)" for that generation
        std::printf("config_for(N=%d, K=%d, M=%d) = %s\n", s[0], s[1], m,
                    r4d::to_string(*c).c_str());
      else
        std::printf("config_for(N=%d, K=%d, M=%d) = None\n", s[0], s[1], m);
    }
  const auto st = r4d::stats();
  std::printf("stats: %llu lookups, %llu unknown shape\n",
              static_cast<unsigned long long>(st.lookups),
              static_cast<unsigned long long>(st.unknown_shape));
  return 0;
}
