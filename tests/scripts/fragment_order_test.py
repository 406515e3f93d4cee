#!/usr/bin/env python3
"""The k order of the ldg generation's 16-bit path (kernels/nv/gemm_w4_ldg.h), checked on the CPU
by emulating one (16-row tile, 64-K block) for all 32 lanes: the sm80 layout's nibble placement
(quant/layout/sm80.h: nibble i of dword s of lane (g, t) is row g + 8 (i & 1), k 16t + 4s + i / 2),
the magic-number dequant's pairing (register i = nibbles (i, i + 4)), and the PTX fragments of
mma.m16n8k16 (a0 = (row g, k 2t, 2t+1), a1 = row g+8, a2 = (row g, k 2t+8, 2t+9), a3 = row g+8;
b0 = (k 2t, 2t+1; column g), b1 = (k 2t+8, 2t+9)). Both ways of making A and B agree must give the
exact dot products:
  - the tree's: weights as packed, activations permuted (prmt 0x5410 / 0x7632);
  - R4L_WPERM: weight bytes 1 and 2 swapped (prmt 0x3120), activations as loaded.
The first is the kernel that the GPU checks pass, so it validates the emulation; the second is the
experiment of docs/PERF.md session 10 before it ran on a GPU. Integer data: exact comparison."""
import random
import sys


def tile_block(W, A, wperm, byte_order=(0, 2, 1, 3)):
    """W: 16 rows x 64 codes; A: 8 columns x 64 activations; returns D[16][8] as the MMAs sum.
    wperm: the weight dword's bytes are reordered (result byte j = source byte byte_order[j])."""
    D = [[0] * 8 for _ in range(16)]
    for s in range(4):  # k16 steps of the block
        Am = [[None] * 16 for _ in range(16)]
        Bm = [[None] * 8 for _ in range(16)]
        for g in range(8):
            for t in range(4):
                n = [W[g + 8 * (i & 1)][16 * t + 4 * s + (i >> 1)] for i in range(8)]
                if wperm:  # prmt(d, d, 0x3120): bytes (0, 2, 1, 3), i.e. nibbles 2,3 <-> 4,5
                    n = [n[2 * byte_order[i >> 1] + (i & 1)] for i in range(8)]
                a = [(n[i], n[i + 4]) for i in range(4)]
                lo = (A[g][16 * t + 4 * s], A[g][16 * t + 4 * s + 1])
                hi = (A[g][16 * t + 4 * s + 2], A[g][16 * t + 4 * s + 3])
                b0, b1 = (lo, hi) if wperm else ((lo[0], hi[0]), (lo[1], hi[1]))
                Am[g][2 * t], Am[g][2 * t + 1] = a[0]
                Am[g + 8][2 * t], Am[g + 8][2 * t + 1] = a[1]
                Am[g][2 * t + 8], Am[g][2 * t + 9] = a[2]
                Am[g + 8][2 * t + 8], Am[g + 8][2 * t + 9] = a[3]
                Bm[2 * t][g], Bm[2 * t + 1][g] = b0
                Bm[2 * t + 8][g], Bm[2 * t + 9][g] = b1
        for r in range(16):
            for c in range(8):
                D[r][c] += sum(Am[r][kk] * Bm[kk][c] for kk in range(16))
    return D


def main():
    rng = random.Random(10)
    for trial in range(20):
        W = [[rng.randint(-8, 7) for _ in range(64)] for _ in range(16)]
        A = [[rng.randint(-1000, 1000) for _ in range(64)] for _ in range(8)]
        ref = [[sum(W[r][k] * A[c][k] for k in range(64)) for c in range(8)] for r in range(16)]
        for wperm in (False, True):
            if tile_block(W, A, wperm) != ref:
                print(f"FAIL trial {trial}: {'R4L_WPERM' if wperm else 'tree'} path differs")
                return 1
    # The check can fail: a wrong byte order (bytes 1 and 3 swapped) must not pass.
    if tile_block(W, A, True, (0, 3, 2, 1)) == ref:
        print("FAIL: a mismatched k order was not caught")
        return 1
    print("PASS: tree and R4L_WPERM k orders give exact dot products (20 tiles); a wrong one fails")
    return 0


if __name__ == "__main__":
    sys.exit(main())
