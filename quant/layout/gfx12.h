// Packed int4 weight layout `gfx12`: the AMD RDNA4 WMMA B-fragment order of the seed's pack()
// (seeds/000_e86873d038551d06.txt). Included by the CPU packer (quant/pack_gfx12.cpp) and by
// kernel sources compiled with hipRTC / NVRTC, so: plain constexpr functions on built-in integer
// types, no std headers, no exceptions.
//
// Shapes: W is [N, K] with N % 16 == 0 and K % 64 == 0; wq holds N*K/8 dwords, eight 4-bit
// two's-complement codes each; wsz holds one dword per (16-row tile, K group, row):
// low half f16(scale), high half f16(-(1024 + 8)) = 0xE408.
//
// wq order, outermost first (the seed's permute(0, 2, 4, 1, 3, 5)):
//   t  = n / 16           16-row tile
//   kb = k / 64           packed K block (KPB = 64: four 16-wide WMMA k steps)
//   lh = lane half        which 4-k half of the 16-wide step a lane reads (lanes 0-15 / 16-31)
//   r  = n % 16           row inside the tile (the lane's column of B)
//   s  = (k % 64) / 16    WMMA k step inside the block
//   i  = nibble 0..7      the unpack emits nibbles 0,2,4,6,1,3,5,7 as fragment elements 0..7 and
//                         element e sits at k = 8*(e>>2) + (e&3), so nibble i is at
//                         kk = 4*lh + KOFF[i], KOFF = (0, 8, 1, 9, 2, 10, 3, 11).
#ifndef R4_QUANT_LAYOUT_GFX12_H
#define R4_QUANT_LAYOUT_GFX12_H

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define R4_GFX12_FN __host__ __device__ constexpr
#else
#define R4_GFX12_FN constexpr
#endif

namespace r4 {
namespace layout {
namespace gfx12 {

constexpr int kTileRows = 16;                 // rows per wsz/wq tile (the WMMA N dimension)
constexpr int kKPerBlock = 64;                // KPB: K per packed block, four 16-wide k steps
constexpr int kNibbles = 8;                   // codes per dword
constexpr unsigned int kScaleHigh = 0xE408u;  // f16 bits of -(1024 + 8)

// KOFF[i]: k offset inside the 16-wide step of nibble i, before the lane half's 4*lh.
R4_GFX12_FN int koff(int i) {
  return (i & 1) ? 8 + (i >> 1) : (i >> 1);
}

// Position of nibble i of the dword for (t, kb, lh, r, s), as k inside the 64-wide block.
R4_GFX12_FN int block_k(int lh, int s, int i) {
  return 16 * s + 4 * lh + koff(i);
}

// Index of the dword holding W[n, k] (K = row length) and the nibble it occupies.
R4_GFX12_FN long long wq_dword(long long n, long long k, long long K) {
  const long long t = n / kTileRows;
  const long long r = n % kTileRows;
  const long long kb = k / kKPerBlock;
  const int rem = static_cast<int>(k % kKPerBlock);
  const int s = rem / 16;
  const int kk = rem % 16;
  const int lh = (kk >> 2) & 1;
  return (((t * (K / kKPerBlock) + kb) * 2 + lh) * kTileRows + r) * 4 + s;
}
R4_GFX12_FN int wq_nibble(long long k) {
  const int kk = static_cast<int>(k % 16);
  return 2 * (kk & 3) + (kk >> 3);
}

// Index of the scale dword of (row n, group g) among `groups` = K / group groups per row.
R4_GFX12_FN long long wsz_index(long long n, long long g, long long groups) {
  return ((n / kTileRows) * groups + g) * kTileRows + n % kTileRows;
}

}  // namespace gfx12
}  // namespace layout
}  // namespace r4

#undef R4_GFX12_FN
#endif  // R4_QUANT_LAYOUT_GFX12_H
