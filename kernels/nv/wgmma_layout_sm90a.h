// Where the sm90a generation (kernels/nv/gemm_w4_sm90a.h) puts each activation in shared memory:
// the wgmma B operand, written down once for the kernel and the host test that checks it
// (tests/kernels/wgmma_layout_test.cpp). Plain integer code, no std header: NVRTC includes it.
//
// Why a permutation at all. The weights keep the `sm80` packed layout (quant/layout/sm80.h), so
// both kernel generations read the same bytes. With the weights as wgmma's register A operand
// (swap AB: 64 weight rows x k, the warp's 16 rows in the mma.sync m16n8k16 / m16n8k32 A
// fragment order, PTX ISA 9.7.15.5.1 "Register Fragments"), lane (g, t) of a warp holds the
// sixteen K positions 16t..16t+15 of each 64-K block, while the MMA takes its lane t at the
// MMA-k positions 2t, 2t+1, 2t+8, 2t+9 of every k16 step (f16/bf16) or 4t..4t+3, 16+4t..16+4t+3
// of every k32 step (s8). The layout header writes both maps down:
//   f16/bf16 k16 step s (0..3 in the block): MMA k {2t, 2t+1, 2t+8, 2t+9} <- real k 16t + 4s + {0, 2, 1, 3}
//   s8 k32 step s' (0..1 in the block):      MMA k {4t+j, 16+4t+j}       <- real k 16t + 8s' + {j, 4+j}
// mma.sync applies that permutation to its B registers (one prmt each); wgmma reads B from
// shared memory, so the kernel's producer writes each activation at the MMA-k position its real k
// maps to. Permuting k identically in both operands leaves every dot product unchanged.
//
// The shared-memory B tile (PTX ISA 9.7.15.5.1, "Shared Memory Matrix Layout", no swizzle,
// K-major: B is K x N, the N activation rows are its columns): core matrices of 8 rows (n) x 16
// bytes (k), 128 contiguous bytes each, row r at byte 16r. One stage holds KC = 128 K (one
// scale group) for NR rows (NR = 16*MB, the wgmma N): the wgmma k-steps of the stage (8 k16 steps
// of 16-bit data, or 4 k32 steps of 8-bit data) each own 2 core matrices along K (MMA-k 0..7 /
// 8..15 for 16-bit, bytes 0..15 / 16..31 for 8-bit) times NR/8 along N:
//     byte = ((step * 2 + half) * (NR / 8) + n / 8) * 128 + (n % 8) * 16 + byte_in_row
// so a k-step's descriptor starts at step * 2 * (NR/8) * 128, with leading-dimension byte offset
// (between the two core matrices along K) LBO = (NR/8) * 128 and stride byte offset (between core
// matrices along N) SBO = 128.
#ifndef R4_KERNELS_NV_WGMMA_LAYOUT_SM90A_H
#define R4_KERNELS_NV_WGMMA_LAYOUT_SM90A_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define R4_WL_FN __host__ __device__ constexpr inline
#else
#define R4_WL_FN constexpr inline
#endif

namespace r4::wgmma_layout {

constexpr int kKc = 128;        // K per pipeline stage: one scale group
constexpr int kCoreBytes = 128;  // one core matrix: 8 rows x 16 bytes

// Bytes of one stage's B tile for NR rows of `elem_bytes`-byte activations.
R4_WL_FN int stage_bytes(int nr, int elem_bytes) {
  return nr * kKc * elem_bytes;
}
// wgmma k-steps per stage: 8 k16 steps of 16-bit data, 4 k32 steps of 8-bit data.
R4_WL_FN int steps_per_stage(int elem_bytes) {
  return elem_bytes == 2 ? 8 : 4;
}
// The byte offset of k-step `step`'s B operand within the stage, and its LBO / SBO (bytes).
R4_WL_FN int step_offset(int step, int nr) {
  return step * 2 * (nr / 8) * kCoreBytes;
}
R4_WL_FN int lbo_bytes(int nr) {
  return (nr / 8) * kCoreBytes;
}
R4_WL_FN int sbo_bytes() {
  return kCoreBytes;
}

// Byte offset, within a stage, of the activation of row n (0..NR-1) at real K position k
// (0..127 within the stage), 16-bit activations (f16 / bf16).
R4_WL_FN int b_offset_16(int n, int k, int nr) {
  const int block = k >> 6;        // 64-K block within the stage (0..1)
  const int kk = k & 63;
  const int t = kk >> 4;           // the weight lane's t
  const int s = (kk >> 2) & 3;     // k16 step within the block
  const int j = kk & 3;            // real k = 16t + 4s + j
  const int step = block * 4 + s;
  const int half = j & 1;          // j = 0, 2 -> MMA k 2t, 2t+1; j = 1, 3 -> 2t+8, 2t+9
  const int col = 2 * t + (j >> 1);  // MMA k within the half (0..7): 16-bit element index
  return ((step * 2 + half) * (nr / 8) + (n >> 3)) * kCoreBytes + (n & 7) * 16 + col * 2;
}

// The same for 8-bit activations (s8; e4m3 later): k32 steps.
R4_WL_FN int b_offset_8(int n, int k, int nr) {
  const int block = k >> 6;
  const int kk = k & 63;
  const int t = kk >> 4;
  const int s = (kk >> 3) & 1;     // k32 step within the block
  const int j8 = kk & 7;           // real k = 16t + 8s + j8
  const int step = block * 2 + s;
  const int half = j8 >> 2;        // j8 < 4 -> MMA k 4t + j8; else 16 + 4t + (j8 - 4)
  const int byte = 4 * t + (j8 & 3);
  return ((step * 2 + half) * (nr / 8) + (n >> 3)) * kCoreBytes + (n & 7) * 16 + byte;
}

// The sm90a order of 8-bit activations (ActOrder::sm90a, kernels/config.hpp): what quant_act and
// quant_act_fp8 write for an sm90a GEMM, so that its producer lands a stage's B tile with a few
// 1-D bulk copies (cp.async.bulk) and no thread touches an activation.
// Within a row, each 64-K block (16 dwords) moves the dword of real k, 4t + c (t = the weight
// lane's t, c = 2 * k32 step + half), to dword 4c + t: a 4 x 4 transpose of dwords, its own
// inverse (act_dword_8). Chunk q (bytes 16q .. 16q+15) of a 128-K group of the row then holds
// exactly the core-matrix row of (step * 2 + half) = q: b_offset_8(n, k, nr) ==
// 16 * ((act_index_8(k) / 16) * nr + n) + act_index_8(k) % 16 for k in 0..127.
// Across rows, the matrix (M rows, K a multiple of 128) is stored chunk-major (act_offset_8):
// group g's chunk q of all M rows, 16 bytes each, then the next chunk. The B tile of rows
// m0 .. m0+R-1 at stage (group) g is then 8 contiguous runs of 16 R bytes, one per chunk q, at the
// tile's byte 16 q NR; when the tile holds every row (m0 = 0, R = M <= NR) they are one run of
// 128 M bytes, copied as one and read with a chunk stride (the descriptors' LBO) of 16 M instead of
// 16 NR. The matrix keeps M * K bytes: no padding, whatever the GEMM's tile
// (tests/kernels/wgmma_layout_test.cpp).
// Chunk-major across rows (both one-byte orders): byte p (0..127, already permuted) of row n in
// 128-K group grp sits in chunk p / 16, whose M rows of 16 bytes follow the previous chunk's.
R4_WL_FN long long chunk_major_byte(long long grp, int p, int n, int M) {
  return (grp * 8 + (p >> 4)) * M * 16 + static_cast<long long>(n) * 16 + (p & 15);
}
// The same in dwords: dword p (0..31, already permuted) of row n in group grp.
R4_WL_FN long long chunk_major_dword(long long grp, int p, int n, int M) {
  return (grp * 8 + (p >> 2)) * M * 4 + static_cast<long long>(n) * 4 + (p & 3);
}
R4_WL_FN int act_dword_8(int d) {
  return (d & ~15) | ((d & 3) << 2) | ((d >> 2) & 3);
}
R4_WL_FN int act_index_8(int k) {
  return 4 * act_dword_8(k >> 2) + (k & 3);
}
// The byte of (row n, real k) of an M-row matrix in the sm90a order.
R4_WL_FN long long act_offset_8(int n, int k, int M) {
  const int p = act_index_8(k & 127);
  return chunk_major_byte(k >> 7, p, n, M);
}
// The same for dword d (real k 4d .. 4d+3) of row n, in dwords.
R4_WL_FN long long act_dword_offset_8(int n, int d, int M) {
  const int p = act_dword_8(d & 31);
  return chunk_major_dword(d >> 5, p, n, M);
}

// The sm90a_mx order (ActOrder::sm90a_mx): what quant_act_fp8 writes for an sm90a
// gemm_mxfp4a8fp8_nt config. Its weights keep the mx_sm89 layout (quant/layout/mx_sm89.h), whose
// k32 step s' of a 64-K block covers the real k 32 s' .. 32 s' + 31 (one e8m0 block), lane t at
// MMA-k 4t + j <- real k 32 s' + 8t + j and 16 + 4t + j <- 32 s' + 8t + 4 + j. In dwords of the
// 64-K block: MMA chunk c = 2 s' + h, dword t <- real dword 8 s' + 2t + h. So the real dword
// d = (s', t, h) (bits 3, 2-1, 0) moves to 4c + t = (s', h, t) (bits 3, 2, 1-0); chunk q of a
// 128-K group is then the core-matrix row of (step * 2 + half) = q as in the sm90a order, and the
// rows are chunk-major in the same way, so the producer's bulk copies are the same.
R4_WL_FN int act_dword_mx(int d) {
  return (d & ~7) | ((d & 1) << 2) | ((d >> 1) & 3);
}
R4_WL_FN int act_index_mx(int k) {
  return 4 * act_dword_mx(k >> 2) + (k & 3);
}
// The B-tile byte of (row n, real k of the stage) for the mx_sm89 MMA-k map (b_offset_8's twin).
R4_WL_FN int b_offset_mx(int n, int k, int nr) {
  const int block = k >> 6;
  const int kk = k & 63;
  const int s = kk >> 5;           // k32 step within the block: one 32-K scale block
  const int t = (kk >> 3) & 3;     // the weight lane's t
  const int half = (kk >> 2) & 1;  // MMA k 4t + j, or 16 + 4t + j
  const int step = block * 2 + s;
  const int byte = 4 * t + (kk & 3);
  return ((step * 2 + half) * (nr / 8) + (n >> 3)) * kCoreBytes + (n & 7) * 16 + byte;
}
R4_WL_FN long long act_offset_mx(int n, int k, int M) {
  const int p = act_index_mx(k & 127);
  return chunk_major_byte(k >> 7, p, n, M);
}
R4_WL_FN long long act_dword_offset_mx(int n, int d, int M) {
  const int p = act_dword_mx(d & 31);
  return chunk_major_dword(d >> 5, p, n, M);
}

}  // namespace r4::wgmma_layout

#endif  // R4_KERNELS_NV_WGMMA_LAYOUT_SM90A_H
