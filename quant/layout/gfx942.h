// The `gfx942` packed-weight layout: AMD CDNA3 (MI300X / MI325X) MFMA, wave64, read by BOTH
// kernels/amd/gemm_w4a16_nt_mfma.h (v_mfma_f32_16x16x16_f16 / _bf16) and
// kernels/amd/gemm_w4a8_nt_mfma.h (v_mfma_i32_16x16x32_i8). Included by the CPU packer
// (quant/pack_gfx942.cpp) and by the kernels under hipRTC / clang-19, so it uses no std header and
// only plain integer types.
//
// Units: a TILE is 16 weight rows (output columns n); a BLOCK is 64 K; a GROUP is 128 K (one
// scale). A wave streams one (tile, block) as one 8-byte load per lane: 64 lanes x 8 B = 512 B =
// 16 rows x 64 K x 4 bit. Lane = 16*q + r, the numbering MFMA uses for its operands: r = lane & 15
// is the B operand's column (the weight row inside the tile), q = lane >> 4 the lane's k-group.
//
// What a lane holds. Lane (q, r) holds row r of the tile at the sixteen K positions
// {16s + 4q + j : s = 0..3, j = 0..3} of the block. Its 8 bytes are two dwords d = 0, 1; dword d
// nibble i (bits 4i..4i+3) is
//     row = r
//     k   = 64*block + 32*d + 16*(i & 1) + 4*q + (i >> 1)
// as a 4-bit two's complement code (-8..7).
//
// Why this order serves both MFMAs (AMD CDNA3 ISA, "Matrix fused-multiply-add (MFMA)" operand
// layouts; the layouts as data are kernels/amd/mfma_gfx942.h). Weights are the B operand (K x N,
// column n = r), activations the A operand (M x K, row m = r), D is (M x N):
//  * v_mfma_i32_16x16x32_i8: B lane (q, r) holds 8 bytes, byte v at MFMA k = 8q + v. k32 step u
//    takes dword u: `(d << 4) & 0xF0F0F0F0` (even nibbles) is bytes 0..3 and `d & 0xF0F0F0F0`
//    (odd nibbles) bytes 4..7, each 16*code (the 1/16 goes into the scale). MFMA k -> real k per
//    lane: 8q + v -> 32u + 4q + v (v < 4), 32u + 16 + 4q + (v - 4) (v >= 4). The A operand takes
//    the same k: activation bytes [32u + 4q, +4) then [32u + 16 + 4q, +4) of the block.
//  * v_mfma_f32_16x16x16_f16 / _bf16: B lane (q, r) holds 4 halves, half v at MFMA k = 4q + v.
//    k16 step s = 2d + e takes dword d's nibbles 2v + e (v = 0..3): real k = 16s + 4q + v, the
//    natural order; the A operand is the activations [16s + 4q, +4) of the block, no shuffle.
//
// Memory order: wq dword index ((tile * KB + block) * 64 + lane) * 2 + d, KB = K/64, so a wave's
// load of one (tile, block) is 512 contiguous bytes and a tile's blocks follow each other.
// Scales: wsz dword index (tile * G + group) * 16 + r (G = K/128), the seeds' [N/16, K/group, 16]
// order shared by every layout; low half f16 scale, high half f16 -(1024+8) = 0xE408.
#ifndef R4_QUANT_LAYOUT_GFX942_H
#define R4_QUANT_LAYOUT_GFX942_H

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define R4_GFX942_FN __host__ __device__ constexpr inline
#else
#define R4_GFX942_FN constexpr inline
#endif

namespace r4 {
namespace layout {
namespace gfx942 {

constexpr int kRowsPerTile = 16;          // the MFMA N dimension
constexpr int kKPerBlock = 64;            // K per 8-byte lane load
constexpr int kGroup = 128;               // K per scale
constexpr int kLanes = 64;                // wave64
constexpr int kDwordsPerLane = 2;         // 8 bytes
constexpr unsigned kScaleHigh = 0xE408u;  // f16 bits of -(1024 + 8)

// k inside the block of nibble i of dword d in a lane of k-group q.
R4_GFX942_FN int block_k(int q, int d, int i) {
  return 32 * d + 16 * (i & 1) + 4 * q + (i >> 1);
}

// Where one weight (row n, column k) lives: dword index into wq and bit shift in it.
struct Pos {
  long long dword;
  int shift;
};

R4_GFX942_FN Pos weight_pos(long long n, long long k, long long K) {
  const long long tile = n / kRowsPerTile;
  const int r = static_cast<int>(n % kRowsPerTile);
  const long long block = k / kKPerBlock;
  const int kk = static_cast<int>(k % kKPerBlock);
  const int d = kk >> 5;            // which k32 half of the block
  const int odd = (kk >> 4) & 1;    // which k16 step inside it
  const int q = (kk >> 2) & 3;      // the lane's k-group
  const int i = 2 * (kk & 3) + odd;
  const int lane = 16 * q + r;
  const long long dword = ((tile * (K / kKPerBlock) + block) * kLanes + lane) * kDwordsPerLane + d;
  return Pos{dword, 4 * i};
}

// Inverse of weight_pos for one nibble: (dword index, nibble 0..7) -> (n, k).
struct RowCol {
  long long n;
  long long k;
};

R4_GFX942_FN RowCol weight_at(long long dword, int nibble, long long K) {
  const int d = static_cast<int>(dword % kDwordsPerLane);
  const long long lane_index = dword / kDwordsPerLane;
  const int lane = static_cast<int>(lane_index % kLanes);
  const long long tb = lane_index / kLanes;
  const long long KB = K / kKPerBlock;
  const long long tile = tb / KB;
  const long long block = tb % KB;
  const int q = lane >> 4;
  const int r = lane & 15;
  return RowCol{tile * kRowsPerTile + r, block * kKPerBlock + block_k(q, d, nibble)};
}

// Scale dword index for (row n, group).
R4_GFX942_FN long long scale_index(long long n, long long group, long long K) {
  return ((n / kRowsPerTile) * (K / kGroup) + group) * kRowsPerTile + (n % kRowsPerTile);
}

// The lane's first dword of (tile, block): what the kernels add to wq.
R4_GFX942_FN long long lane_dword(long long tile, long long block, long long KB, int lane) {
  return ((tile * KB + block) * kLanes + lane) * kDwordsPerLane;
}

}  // namespace gfx942
}  // namespace layout
}  // namespace r4

#undef R4_GFX942_FN
#endif  // R4_QUANT_LAYOUT_GFX942_H
