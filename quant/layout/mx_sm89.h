// The `mx_sm89` packed layout: MXFP4 weights (e2m1 codes, one e8m0 block exponent per 32 K) in
// the fragment order of mma.sync m16n8k32 .e4m3 (sm_89+), read by kernels/gemm_mxfp4a8fp8_nt.cu.
// Included by the CPU packer (quant/pack_mx_sm89.cpp), the GPU reference (kernels/reference_gpu.cu)
// and the kernel under NVRTC / nvcc, so it uses no std header and only plain integer types.
//
// Units as quant/layout/sm80.h: a TILE is 16 weight rows (output columns n), a BLOCK 64 K, a
// warp streams one (tile, block) as one 16-byte load per lane (512 B); lane = 4*g + t. Unlike
// sm80, every k32 MMA step must stay inside one 32-K scale block (the e8m0 exponent is applied to
// that step's f32 partial), so the MMA-k -> real-k map differs:
//
//   k32 step s' (0, 1) covers real k 32s' .. 32s'+31 of the block. Lane t's A bytes a0 (row g)
//   and a1 (row g+8) are MMA-k 4t..4t+3 = real k 32s' + 8t + j, and a2 (row g) / a3 (row g+8)
//   MMA-k 16+4t.. = real k 32s' + 8t + 4 + j (j = 0..3). Its B registers are then the 8
//   contiguous activation bytes 32s' + 8t .. +7 (one 8-byte shared load per step).
//
// What a lane holds: 4 dwords, dword s = 2s' + h (h = 0: a0/a1, h = 1: a2/a3); byte j of dword s
// holds real k = 32(s>>1) + 8t + 4(s&1) + j, its LOW nibble the code of row g, its HIGH nibble
// the code of row g+8 (e2m1: bit 3 sign, bits 2-0 the magnitude index), i.e.
//     row  = g + 8*(i & 1),   k = 64*block + 32(s>>1) + 8t + 4(s&1) + (i >> 1)
// for nibble i of dword s (kernels/nv/cvt_fp8.h turns low nibbles into a0/a2, high into a1/a3).
// Memory order as sm80: wq dword ((tile * KB + block) * 32 + lane) * 4 + s, KB = K/64.
//
// Scales: e8m0 bytes, 32 per (tile, block), byte ((tile * KB + block) * 32) + 4g + 2(r >> 3) + s'
// for row r = g + 8(r >> 3) of the tile and the block's 32-K half s': lane (g, t) reads dword g
// of its (tile, block) and finds (row g, s'=0), (row g, s'=1), (row g+8, s'=0), (row g+8, s'=1) in
// bytes 0..3. wsz therefore has N*K/32 bytes = N*K/128 dwords, as many as the int4 layouts' scale
// dwords, so the two share buffer sizes.
#ifndef R4_QUANT_LAYOUT_MX_SM89_H
#define R4_QUANT_LAYOUT_MX_SM89_H

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define R4_MX_LAYOUT_FN __host__ __device__ constexpr inline
#else
#define R4_MX_LAYOUT_FN constexpr inline
#endif

namespace r4::layout::mx_sm89 {

constexpr int kRowsPerTile = 16;
constexpr int kKPerBlock = 64;
constexpr int kKPerScale = 32;  // one e8m0 exponent per 32 K (MXFP4)
constexpr int kLanes = 32;
// Largest block exponent the kernel folds: it multiplies each 32-K partial by 2^(e - 127 + 14)
// (its f16 route on sm_90; 2^(e - 127 + 6) on the e4m3 one) as one f32 (kernels/nv/mma_sm89.h),
// finite for e <= 240 (weights below 2^114); the packer refuses larger exponents and 255 (NaN).
constexpr int kMaxE8m0 = 240;

struct Pos {
  long long dword;
  int shift;
};

// Where code (row n, column k) lives: dword index into wq and bit shift in it.
R4_MX_LAYOUT_FN Pos weight_pos(long long n, long long k, long long K) {
  const long long tile = n / kRowsPerTile;
  const int r = static_cast<int>(n % kRowsPerTile);
  const long long block = k / kKPerBlock;
  const int kk = static_cast<int>(k % kKPerBlock);
  const int g = r & 7;
  const int hi = r >> 3;          // row g+8: the high nibble
  const int step = kk >> 5;       // the 32-K half
  const int w = kk & 31;
  const int t = w >> 3;
  const int h = (w >> 2) & 1;     // a0/a1 or a2/a3
  const int j = w & 3;            // byte in the register
  const int lane = 4 * g + t;
  const int s = 2 * step + h;
  const long long dword = ((tile * (K / kKPerBlock) + block) * kLanes + lane) * 4 + s;
  return Pos{dword, 8 * j + 4 * hi};
}

struct RowCol {
  long long n;
  long long k;
};

// Inverse of weight_pos: (dword index, nibble 0..7) -> (n, k).
R4_MX_LAYOUT_FN RowCol weight_at(long long dword, int nibble, long long K) {
  const int s = static_cast<int>(dword & 3);
  const long long lane_index = dword >> 2;
  const int lane = static_cast<int>(lane_index % kLanes);
  const long long tb = lane_index / kLanes;
  const long long KB = K / kKPerBlock;
  const long long tile = tb / KB;
  const long long block = tb % KB;
  const int g = lane >> 2;
  const int t = lane & 3;
  const long long n = tile * kRowsPerTile + g + 8 * (nibble & 1);
  const long long k = block * kKPerBlock + 32 * (s >> 1) + 8 * t + 4 * (s & 1) + (nibble >> 1);
  return RowCol{n, k};
}

// Byte index into wsz of the e8m0 exponent of (row n, 32-K block kb32 = k / 32).
R4_MX_LAYOUT_FN long long scale_pos(long long n, long long kb32, long long K) {
  const long long tile = n / kRowsPerTile;
  const int r = static_cast<int>(n % kRowsPerTile);
  const long long block = kb32 / 2;
  const int step = static_cast<int>(kb32 % 2);
  return (tile * (K / kKPerBlock) + block) * 32 + 4 * (r & 7) + 2 * (r >> 3) + step;
}

}  // namespace r4::layout::mx_sm89

#endif  // R4_QUANT_LAYOUT_MX_SM89_H
