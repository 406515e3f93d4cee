// The `sm80` packed-weight layout: NVIDIA mma.sync fragment order, read by BOTH
// kernels/gemm_w4a16_nt.cu (mma.sync m16n8k16 f16/bf16) and kernels/gemm_w4a8_nt.cu (mma.sync
// m16n8k32 s8). Included by the CPU packer (quant/pack_sm80.cpp) and by the kernels under NVRTC,
// so it uses no std header and only plain integer types.
//
// Units: a TILE is 16 weight rows (output columns n); a BLOCK is 64 K; a GROUP is 128 K (one
// scale). A warp streams one (tile, block) as one 16-byte load per lane: 32 lanes x 16 B = 512 B =
// 16 rows x 64 K x 4 bit. Lane = 4*g + t (g = lane>>2 is the PTX "groupID", t = lane&3 the
// "threadID_in_group"), the same numbering mma.sync uses for its fragments.
//
// What a lane holds. Lane (g, t) holds rows g and g+8 of the tile, at the sixteen K positions
// 16t .. 16t+15 of the block (contiguous: the matching activations are one 32-byte (f16) or
// 16-byte (int8) vector load). Its 16 bytes are four dwords s = 0..3; dword s nibble i (bits
// 4i..4i+3) is
//     row  = g + 8*(i & 1)
//     k    = 64*block + 16*t + 4*s + (i >> 1)
// as a 4-bit two's complement code (-8..7).
//
// Why this order serves both MMAs (PTX ISA 9.7.13.4.7 / .4.8, "Matrix Fragments for mma.m16n8k16"
// and "mma.m16n8k32"; weights are the 16-row A operand, activations the 8-wide B operand, so M is
// not padded to 16):
//  * s8 m16n8k32: A register a0 holds (row g, k 4t..4t+3), a1 (row g+8, same k), a2 (row g,
//    k 16+4t..16+4t+3), a3 (row g+8, ...). Dword s's EVEN nibbles are 4 consecutive k of row g,
//    its ODD nibbles the same k of row g+8, so `(d << 4) & 0xF0F0F0F0` and `d & 0xF0F0F0F0` are
//    int8x4 registers holding 16*code (the 1/16 goes into the scale). k32 step s' takes dwords
//    2s' and 2s'+1: a0 = even(d[2s']), a1 = odd(d[2s']), a2 = even(d[2s'+1]), a3 = odd(d[2s'+1]).
//    MMA k index -> real k, per lane: 32s' + {4t+j, 16+4t+j} -> 16t + 8s' + {j, 4+j} (j = 0..3).
//    The B registers are then b0 = act[16t+8s' .. +3], b1 = act[16t+8s'+4 .. +7]: the lane's
//    16 activation bytes in natural order, no shuffling.
//  * f16/bf16 m16n8k16: a0 holds (row g, k 2t, 2t+1), a1 (row g+8, same), a2 (row g, k 2t+8,
//    2t+9), a3 (row g+8, ...). The magic-number dequant (FasterTransformer / Marlin) turns the
//    nibble pairs (i, i+4) of a dword into one f16x2: (0,4) = row g, (1,5) = row g+8,
//    (2,6) = row g, (3,7) = row g+8. k16 step s takes dword s: a0 = pair(0,4), a1 = pair(1,5),
//    a2 = pair(2,6), a3 = pair(3,7). MMA k index -> real k, per lane:
//    16s + {2t, 2t+1, 2t+8, 2t+9} -> 16t + 4s + {0, 2, 1, 3}.
//    THE K-PERMUTATION IS APPLIED TO THE ACTIVATIONS: b0 = (act[16t+4s], act[16t+4s+2]),
//    b1 = (act[16t+4s+1], act[16t+4s+3]); one prmt per register from the natural-order vector
//    load. Permuting k identically in both operands leaves the dot product unchanged.
//
// Memory order: wq dword index ((tile * KB + block) * 32 + lane) * 4 + s, KB = K/64, so a warp's
// load of one (tile, block) is 512 contiguous bytes and a tile's blocks follow each other.
// Scales: wsz dword index (tile * G + group) * 16 + r (r = row in the tile, G = K/128), the seeds'
// [N/16, K/group, 16] order; low half f16 scale, high half f16 -(1024+8) = 0xE408.
#ifndef R4_QUANT_LAYOUT_SM80_H
#define R4_QUANT_LAYOUT_SM80_H

#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define R4_LAYOUT_FN __host__ __device__ constexpr inline
#else
#define R4_LAYOUT_FN constexpr inline
#endif

namespace r4::layout::sm80 {

constexpr int kRowsPerTile = 16;
constexpr int kKPerBlock = 64;  // K per 16-byte lane load
constexpr int kGroup = 128;     // K per scale
constexpr int kLanes = 32;
constexpr unsigned kScaleHigh = 0xE408u;  // f16 bits of -(1024 + 8)

// Where one weight (row n, column k) lives: dword index into wq and bit shift in it.
struct Pos {
  long long dword;
  int shift;
};

R4_LAYOUT_FN Pos weight_pos(long long n, long long k, long long K) {
  const long long tile = n / kRowsPerTile;
  const int r = static_cast<int>(n % kRowsPerTile);
  const long long block = k / kKPerBlock;
  const int kk = static_cast<int>(k % kKPerBlock);
  const int g = r & 7;
  const int odd = r >> 3;  // row g+8 sits in the odd nibbles
  const int t = kk >> 4;
  const int s = (kk >> 2) & 3;
  const int i = 2 * (kk & 3) + odd;
  const int lane = 4 * g + t;
  const long long dword = ((tile * (K / kKPerBlock) + block) * kLanes + lane) * 4 + s;
  return Pos{dword, 4 * i};
}

// Inverse of weight_pos for one nibble: (dword index, nibble 0..7) -> (n, k).
struct RowCol {
  long long n;
  long long k;
};

R4_LAYOUT_FN RowCol weight_at(long long dword, int nibble, long long K) {
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
  const long long k = block * kKPerBlock + 16 * t + 4 * s + (nibble >> 1);
  return RowCol{n, k};
}

// Scale dword index for (row n, group).
R4_LAYOUT_FN long long scale_index(long long n, long long group, long long K) {
  return ((n / kRowsPerTile) * (K / kGroup) + group) * kRowsPerTile + (n % kRowsPerTile);
}

// Per-lane offsets used by the kernels (in units of the 16-byte lane chunk and scale dwords).
R4_LAYOUT_FN long long lane_chunk(long long tile, long long block, long long KB, int lane) {
  return (tile * KB + block) * kLanes + lane;
}

}  // namespace r4::layout::sm80

#endif  // R4_QUANT_LAYOUT_SM80_H
