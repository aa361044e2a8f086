// TRIAL, not served (thirteenth session; results in bench/cuda/dense/h200_results.txt): the MLX
// affine-quantized decode projection, 1..32 rows, on Hopper's warpgroup tensor cores (wgmma, sm_90a
// only). Correct at every width and group (qmv_wgmma_check.cu against float64) but slower than the
// served mma.sync kernel (kernels/affine/qmv/qmv.cuh) at every shape measured. Built by hand:
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 trial/qmv_wgmma_check.cu -o check
//   nvcc ... -DKC_QMV_TRIAL='"../../../trial/qmv_wgmma_bench.cuh"' bench/cuda/dense/bench_dense.cu -lcublas
//
// A block is two warpgroups: one 64-row W tile and one of C parts of K (parts of ceil(steps / C) steps
// of 256 k). The part streams through a ring of S shared-memory stages filled by cp.async: a step's
// code words of the 64 rows (rows padded so a warp's reads spread over the banks), their scales and
// biases, and x's NX rows (8, 16 or 32: wgmma's N; rows past M zero) as wgmma's B operand, 128-byte
// swizzled. The codes become wgmma's A operand in registers: each lane turns its 8 codes of a 32-k
// pair into bf16 exactly as the mma.sync form does (codes8_bf16, the same lane-to-k map), and x's
// 4-byte pairs are placed in B's rows to match that map. Per group: sum x q by a wgmma chain from
// zero, sum x by a second chain (A all ones), then s (sum x q) and b (sum x) go by one fma each into
// two fp32 accumulators in group order; warpgroup w takes the groups gi % 2 == w of each step. The C
// blocks of a tile are one cluster: part 0 adds the others' sums in part order through distributed
// shared memory.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

#include "../kernels/dense/gemm/gemm_sm90a.cuh"
#include "../kernels/affine/qmv/qmv.cuh"

namespace kc::qmv90 {

constexpr int kRows = 64;      // W rows of a block (wgmma's M)
constexpr int kStep = 256;     // k a stage holds
constexpr int kWgs = 2;        // warpgroups a block: each takes every other group of a step
constexpr int kThreads = 128 * kWgs;
constexpr int kMaxParts = 8;   // parts of K a tile's cluster may have
inline int nx_of(int M) { return M <= 8 ? 8 : M <= 16 ? 16 : 32; }

// A stage's layout for BITS and GROUP: the lane-to-k map of qmv.cuh, the codes' padded row stride,
// the scale (bias) pieces a row.
template <int BITS, int GROUP> struct Geo {
  // At 2 (groups of 64, 128), 4 and 8 bits a lane reads a group's codes as one run of kRun words.
  static constexpr int kSpan =
      (BITS == 4 || BITS == 8 || (BITS == 2 && GROUP >= 64)) ? (GROUP / 32 < 4 ? GROUP / 32 : 4) : 1;
  static constexpr int kRun = kSpan * BITS / 4;
  static constexpr int kLaneK = 8 * kSpan;
  static constexpr int kGroups = kStep / GROUP;  // groups a stage
  static constexpr int kPairsGroup = GROUP / 32;
  static constexpr int kRowWords = 8 * BITS;  // code words of a row a stage
  // A warp's reads of one load cover 4 lanes a row: a run of kRun words each (or ~1 word where
  // kSpan is 1). Rows kT words apart (mod 32) keep the rows of one load phase on separate banks.
  static constexpr int kT = kSpan > 1 ? (kRun >= 8 ? 4 : 4 * kRun) : 4;
  static constexpr int kStride = kRowWords + ((kT - kRowWords) % 32 + 32) % 32;
  static constexpr int kSbPieces = kGroups / 2 + 1;  // 4-byte pieces of a row's scales a stage
  // A row's pieces apart in shared memory: the whole step's scales (2 kGroups bytes) land aligned.
  static constexpr int kSbPitch = (kSbPieces + kGroups / 2 - 1) / (kGroups / 2) * (kGroups / 2);
  // Pair p's k past the step's start, and the lane's share of it (8 kSpan t).
  __host__ __device__ static constexpr int pair_k(int p) {
    return kSpan > 1 ? 32 * kSpan * (p / kSpan) + 8 * (p % kSpan) : 32 * p;
  }
};

template <int NX> __host__ __device__ constexpr int x_bytes() { return NX * 512; }  // 4 swizzle atoms of 64 k
template <int BITS, int GROUP> __host__ __device__ constexpr int q_bytes() { return kRows * Geo<BITS, GROUP>::kStride * 4; }
template <int BITS, int GROUP> __host__ __device__ constexpr int sb_bytes() {
  return 2 * kRows * Geo<BITS, GROUP>::kSbPitch * 4;
}
template <int BITS, int GROUP, int NX> __host__ __device__ constexpr int stage_bytes() {
  return (x_bytes<NX>() + q_bytes<BITS, GROUP>() + sb_bytes<BITS, GROUP>() + 1023) / 1024 * 1024;
}
// Stages: about 64 KiB a block, 3 to 8.
template <int BITS, int GROUP, int NX> __host__ __device__ constexpr int stages() {
  return 65536 / stage_bytes<BITS, GROUP, NX>() < 3   ? 3
         : 65536 / stage_bytes<BITS, GROUP, NX>() > 8 ? 8
                                                       : 65536 / stage_bytes<BITS, GROUP, NX>();
}
template <int BITS, int GROUP, int NX> __host__ __device__ constexpr int smem_bytes() {
  return stages<BITS, GROUP, NX>() * stage_bytes<BITS, GROUP, NX>() + 1024;  // + 1 KiB to align
}
// Blocks an SM its shared memory allows (sm_90: 228 KiB, 1 KiB of it reserved a block), at most 4:
// the registers are held to what those leave (128 at 4 blocks).
template <int BITS, int GROUP, int NX> __host__ __device__ constexpr int min_blocks() {
  return 233472 / (smem_bytes<BITS, GROUP, NX>() + 1024) > 2 ? 2 : 233472 / (smem_bytes<BITS, GROUP, NX>() + 1024);
}

static __constant__ uint32_t kc_qmv90_ones = 0x3F803F80u;  // bf16 1.0 pairs: sum x's A operand

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// cp.async of 16 or 4 bytes, `bytes` of them read (the rest zero).
__device__ __forceinline__ void cp16(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp4(uint32_t dst, const void* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
// A whole cp.async of B bytes (4, 8 or 16).
template <int B> __device__ __forceinline__ void cp_whole(uint32_t dst, const void* src) {
  if constexpr (B == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(B));
}

// Shared-memory loads by 32-bit address (no 64-bit generic pointers held across the loop).
__device__ __forceinline__ uint32_t lds32(uint32_t a) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ uint2 lds64(uint32_t a) {
  uint2 v;
  asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(a));
  return v;
}
__device__ __forceinline__ uint4 lds128(uint32_t a) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
  return v;
}
__device__ __forceinline__ float lds_bf16(uint32_t a) {
  uint16_t v;
  asm volatile("ld.shared.b16 %0, [%1];\n" : "=h"(v) : "r"(a));
  return kc::affine_cu::bf(v);
}

// One wgmma m64nNXk16 with A from registers (bf16 in, fp32 accumulate): d = A B^T + (SD ? d : 0).
template <int NX, int SD> struct Wg;
template <int SD> struct Wg<8, SD> {
  static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint64_t db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(SD));
  }
};
template <int SD> struct Wg<16, SD> {
  static __device__ __forceinline__ void mma(float (&d)[8], const uint32_t (&a)[4], uint64_t db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, "
        "%12, p, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(SD));
  }
};
template <int SD> struct Wg<32, SD> {
  static __device__ __forceinline__ void mma(float (&d)[16], const uint32_t (&a)[4], uint64_t db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, "
        "%12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "n"(SD));
  }
};

// Part `part` of C of the tile at W row n0: this thread's sums in warpgroup 0 (lane 4g + t of warp v:
// W rows n0 + 16v + g and + 8, x rows 8j + 2t and + 1 in out[4j], out[4j + 1] and out[4j + 2],
// out[4j + 3]). Warpgroup w takes the groups gi of each step with gi % kWgs == w; warpgroup 1's sums
// are added to warpgroup 0's when the part is done.
template <int BITS, int GROUP, int NX>
__device__ __forceinline__ void part_sums(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q,
                                          const uint16_t* __restrict__ s, const uint16_t* __restrict__ b, int M, int N,
                                          int K, int n0, int part, int C, uint32_t sbase, float (&out)[NX / 2]) {
  using namespace kc::gemm90;
  using Gm = Geo<BITS, GROUP>;
  constexpr int S = stages<BITS, GROUP, NX>(), SB = stage_bytes<BITS, GROUP, NX>();
  constexpr int XB = x_bytes<NX>(), QB = q_bytes<BITS, GROUP>();
  constexpr int kSpan = Gm::kSpan, kRun = Gm::kRun, kPG = Gm::kPairsGroup, kGroups = Gm::kGroups;
  static_assert(kGroups % kWgs == 0, "each warpgroup takes as many groups of a step");
  // The warpgroup as a warp-uniform value (a shuffle's result): branches on it are not divergent to
  // ptxas, which otherwise serializes the wgmma pipeline behind them.
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid / 128, 0);
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane >> 2, t = lane & 3;
  const int steps_all = (K + kStep - 1) / kStep, per = (steps_all + C - 1) / C;
  const int s0 = part * per, steps = max(0, min(steps_all, s0 + per) - s0);
  const int Gn = K / GROUP;                         // groups a row
  const long rowbytes = long(K) / 8 * BITS;         // code bytes a row
  const bool q16 = rowbytes % 16 == 0;              // every row's codes 16-byte aligned
  const int mrows = M < NX ? M : NX;

  // x rows past M stay zero in every stage (cp.async never writes them).
  for (int i = tid; i < S * 4 * (NX - mrows) * 8; i += kThreads) {
    const int c = i % 8, r = mrows + (i / 8) % (NX - mrows), a = (i / 8 / (NX - mrows)) % 4, st = i / 8 / (NX - mrows) / 4;
    asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};\n" ::"r"(sbase + st * SB + a * NX * 128 + r * 128 + c * 16), "r"(0));
  }

  // This thread's x piece of a stage (rows wg, wg + kWgs, ...): k16 step j16 = (tid % 128) / 8 (pair
  // j16 / 2, half j16 % 2), slot pair tid % 8 (lane tid % 4's pair, in the upper 8 slots from 4 on),
  // placed where B's rows read it.
  const int xj16 = (tid % 128) / 8, xsp = tid % 8, xt = xsp % 4, xup = xsp / 4;
  const int xk = Gm::pair_k(xj16 / 2) + Gm::kLaneK * xt + 4 * (xj16 % 2) + 2 * xup;
  const int xdst = (xj16 / 4) * NX * 128 + 4 * xt, xchunk = 2 * (xj16 % 4) + xup;
  const long sbtotal = long(N) * Gn;
  // Tiles whole in N with K a multiple of the step (every launch but the edges): every copy is whole
  // and aligned, from this thread's bases plus the step's offset (no per-copy tests or address math).
  const bool whole = K % kStep == 0 && n0 + kRows <= N;
  constexpr int kQc = (kRows * 2 * BITS + kThreads - 1) / kThreads;  // code chunks a thread a step
  const unsigned char* qsrc[kQc];
  uint32_t qdst[kQc];
#pragma unroll
  for (int i = 0; i < kQc; ++i) {
    const int idx = tid + kThreads * i, r = idx / (2 * BITS), c = idx % (2 * BITS);
    qsrc[i] = idx < kRows * 2 * BITS ? reinterpret_cast<const unsigned char*>(q) + (size_t(n0 + r) * rowbytes + 16 * c) : nullptr;
    qdst[i] = r * Gm::kStride * 4 + 16 * c;
  }
  // Scales (tid < 64) and biases (64 <= tid < 128) of row tid % 64: the step's groups, one copy.
  const uint16_t* const sbsrc = (tid < 64 ? s : b) + size_t(n0 + tid % 64) * Gn;
  const uint32_t sbdst = (tid % 128) * Gm::kSbPitch * 4;
  const uint16_t* const xsrc = x + (size_t(wg) * K + xk);
  auto load_whole = [&](int stage, int st) {
    const int kb = (s0 + st) * kStep;
    const uint32_t sx = sbase + stage * SB, sq = sx + XB, ssb = sq + QB;
    const uint16_t* src = xsrc + kb;
#pragma unroll 1
    for (int n = wg; n < mrows; n += kWgs, src += size_t(kWgs) * K) cp_whole<4>(sx + xdst + n * 128 + ((xchunk ^ (n & 7)) << 4), src);
    const size_t off = size_t(kb) / 8 * BITS;
#pragma unroll
    for (int i = 0; i < kQc; ++i)
      if (kQc * kThreads == kRows * 2 * BITS || qsrc[i]) cp_whole<16>(sq + qdst[i], qsrc[i] + off);
    if (tid < 128) cp_whole<2 * kGroups>(ssb + sbdst, sbsrc + kb / GROUP);
  };
  auto load = [&](int stage, int st) {
    if (whole) return load_whole(stage, st);
    const int kb = (s0 + st) * kStep;
    const uint32_t sx = sbase + stage * SB, sq = sx + XB, ssb = sq + QB;
    {
      const bool v = kb + xk < K;
      const uint16_t* src = x + (size_t(wg) * K + kb + xk);
#pragma unroll 1
      for (int n = wg; n < mrows; n += kWgs, src += size_t(kWgs) * K)
        cp4(sx + xdst + n * 128 + ((xchunk ^ (n & 7)) << 4), v ? src : x, v ? 4 : 0);
    }
    const long off = long(kb) / 8 * BITS;  // the step's first code byte in a row
    const unsigned char* const qb = reinterpret_cast<const unsigned char*>(q);
    if (q16) {
#pragma unroll 1
      for (int idx = tid; idx < kRows * 2 * BITS; idx += kThreads) {
        const int r = idx / (2 * BITS), c = idx % (2 * BITS), n = n0 + r;
        const long rem = rowbytes - off - 16 * c;
        const int bytes = n < N ? (rem >= 16 ? 16 : rem > 0 ? int(rem) : 0) : 0;
        cp16(sq + r * Gm::kStride * 4 + 16 * c, bytes ? qb + (size_t(n) * rowbytes + off + 16 * c) : qb, bytes);
      }
    } else {
#pragma unroll 1
      for (int idx = tid; idx < kRows * 8 * BITS; idx += kThreads) {
        const int r = idx / (8 * BITS), c = idx % (8 * BITS), n = n0 + r;
        const long rem = rowbytes - off - 4 * c;
        const int bytes = n < N ? (rem >= 4 ? 4 : rem > 0 ? int(rem) : 0) : 0;
        cp4(sq + r * Gm::kStride * 4 + 4 * c, bytes ? qb + (size_t(n) * rowbytes + off + 4 * c) : qb, bytes);
      }
    }
    // Scales (a = 0) and biases (a = 1) of row r: kSbPieces 4-byte pieces from the even element at or
    // below the step's first group.
#pragma unroll 1
    for (int idx = tid; idx < 2 * kRows * Gm::kSbPieces; idx += kThreads) {
      const int i = idx % Gm::kSbPieces, ar = idx / Gm::kSbPieces, a = ar / kRows, r = ar % kRows, n = n0 + r;
      const uint16_t* const src = a ? b : s;
      const long e = ((long(n) * Gn + kb / GROUP) & ~1L) + 2 * i, rem = (sbtotal - e) * 2;
      const int bytes = n < N ? (rem >= 4 ? 4 : rem > 0 ? int(rem) : 0) : 0;
      cp4(ssb + ar * Gm::kSbPitch * 4 + 4 * i, bytes ? src + e : src, bytes);
    }
  };

  // The lane's code words, scales and biases: rows r0 = 16 warp + g and r0 + 8 of the tile.
  const int r0 = warp * 16 + g;
  const int par0 = int((long(n0 + r0) * Gn) & 1), par1 = int((long(n0 + r0 + 8) * Gn) & 1);
  const int wofs = (t * BITS) / 4, o = (8 * t * BITS) % 32;
  constexpr bool kHi = BITS == 3 || BITS == 5 || BITS == 6 || BITS == 8;
  const bool two = kHi && o + 8 * BITS > 32;
  // bf16 1.0 pairs, loaded (not a constant ptxas would re-materialise for every wgmma).
  const uint32_t one = kc_qmv90_ones;
  const uint32_t ones[4] = {one, one, one, one};
  float accq[NX / 2], accb[NX / 2];
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) accq[i] = 0.f, accb[i] = 0.f;

  // Group gi's codes of the lane's rows as wgmma A fragments (two k16 steps a 32-k pair).
  auto frags = [&](uint32_t q0, int gi, uint32_t (&af)[kPG][2][4]) {
    uint32_t run[2][kRun > 0 ? kRun : 1];
    if constexpr (kSpan > 1) {  // the group's codes of the lane's rows: one run each
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t src = q0 + 4 * (8 * h * Gm::kStride + gi * kSpan * BITS + kRun * t);
        if constexpr (kRun == 1) {
          run[h][0] = lds32(src);
        } else if constexpr (kRun == 2) {
          const uint2 v = lds64(src);
          run[h][0] = v.x, run[h][1] = v.y;
        } else {
#pragma unroll
          for (int u = 0; u < kRun / 4; ++u) {
            const uint4 v = lds128(src + 16 * u);
            run[h][4 * u] = v.x, run[h][4 * u + 1] = v.y, run[h][4 * u + 2] = v.z, run[h][4 * u + 3] = v.w;
          }
        }
      }
    }
#pragma unroll
    for (int pp = 0; pp < kPG; ++pp) {
      const int p = gi * kPG + pp;
      uint32_t cw[2][4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint32_t lo, hi;
        int ob;
        if constexpr (kSpan > 1) {  // a group is one run: pair pp of it (kSpan == kPG)
          static_assert(kSpan == kPG, "a run holds its group's pairs");
          const int i = pp;
          lo = BITS == 8 ? run[h][2 * i] : BITS == 4 ? run[h][i] : run[h][i / 2];
          hi = BITS == 8 ? run[h][2 * i + 1] : 0u;
          ob = BITS == 2 ? 16 * (pp % 2) : 0;
        } else {
          const uint32_t src = q0 + 4 * (8 * h * Gm::kStride + p * BITS + wofs);
          lo = lds32(src);
          hi = two ? lds32(src + 4) : 0u;
          ob = o;
        }
        kc::affine_cu::codes8_bf16<BITS>(lo, hi, ob, cw[h]);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        af[pp][j][0] = cw[0][2 * j], af[pp][j][1] = cw[1][2 * j];
        af[pp][j][2] = cw[0][2 * j + 1], af[pp][j][3] = cw[1][2 * j + 1];
      }
    }
  };
  // Group gi's two wgmma chains (sum x q into dq, sum x into dx), committed as one group.
  auto chains = [&](uint32_t sx, int gi, const uint32_t (&af)[kPG][2][4], float (&dq)[NX / 2], float (&dx)[NX / 2]) {
    wg_fence();
#pragma unroll
    for (int pp = 0; pp < kPG; ++pp)
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int j16 = 2 * (gi * kPG + pp) + j;
        const uint64_t db = desc128(sx + (j16 / 4) * NX * 128 + (j16 % 4) * 32);
        if (pp == 0 && j == 0) {
          Wg<NX, 0>::mma(dq, af[pp][j], db);
          Wg<NX, 0>::mma(dx, ones, db);
        } else {
          Wg<NX, 1>::mma(dq, af[pp][j], db);
          Wg<NX, 1>::mma(dx, ones, db);
        }
      }
    wg_commit();
  };
  // Group gi's terms into the accumulators (its chains finished).
  auto fold = [&](uint32_t ssb, int gi, const float (&dq)[NX / 2], const float (&dx)[NX / 2]) {
    const uint32_t sb0 = ssb + 2 * (r0 * 2 * Gm::kSbPitch + par0 + gi);
    const uint32_t sb1 = ssb + 2 * ((r0 + 8) * 2 * Gm::kSbPitch + par1 + gi);
    constexpr uint32_t kBias = kRows * Gm::kSbPitch * 4;  // the biases past the scales
    const float sv0 = lds_bf16(sb0), bv0 = lds_bf16(sb0 + kBias);
    const float sv1 = lds_bf16(sb1), bv1 = lds_bf16(sb1 + kBias);
#pragma unroll
    for (int i = 0; i < NX / 2; ++i) {
      const bool up = (i % 4) >= 2;
      accq[i] = fmaf(up ? sv1 : sv0, dq[i], accq[i]);
      accb[i] = fmaf(up ? bv1 : bv0, dx[i], accb[i]);
    }
  };
  // A step's groups of this warpgroup: group j + 1's fragments are built while group j's chains run;
  // no accumulator is read while a chain is in flight (that would serialize the wgmma pipeline).
  auto compute = [&](int stage, int st) {
    const int kb = (s0 + st) * kStep;
    const int ng = (K - kb) / GROUP < kGroups ? (K - kb) / GROUP : kGroups;  // whole groups: K % GROUP == 0
    const uint32_t sx = sbase + stage * SB, sq = sx + XB, ssb = sq + QB;
    const uint32_t q0 = sq + r0 * Gm::kStride * 4;  // row r0's code words (r0 + 8: + 8 strides)
    constexpr int J = kGroups / kWgs;
    uint32_t af[2][kPG][2][4];
    float dq[NX / 2], dx[NX / 2];
    if (wg < ng) {
      frags(q0, wg, af[0]);
      chains(sx, wg, af[0], dq, dx);
    }
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const int gi = wg + kWgs * j, gn = gi + kWgs;
      if (j + 1 < J && gn < ng) frags(q0, gn, af[(j + 1) % 2]);
      if (gi < ng) {
        wg_wait<0>(dq);
#pragma unroll
        for (int i = 0; i < NX / 2; ++i) asm volatile("" : "+f"(dx[i])::"memory");
        fold(ssb, gi, dq, dx);
      }
      if (j + 1 < J && gn < ng) chains(sx, gn, af[(j + 1) % 2], dq, dx);
    }
  };

  // The ring: S - 1 steps in flight; a stage is refilled once every thread is past its step (each
  // step's wgmma are waited for before the step ends, so none reads a stage being refilled).
#pragma unroll
  for (int i = 0; i < S - 1; ++i) {
    if (i < steps) load(i, i);
    kc::gemm_cu::cp_commit();
  }
  for (int st = 0; st < steps; ++st) {
    kc::gemm_cu::cp_wait<S - 2>();  // this thread's copies of step st have landed
    fence_async_shared();           // ... and are visible to wgmma's reads (and the zeroed x rows)
    __syncthreads();                // every thread's copies; every thread done with step st - 1
    const int nx = st + S - 1;
    if (nx < steps) load(nx % S, nx);
    kc::gemm_cu::cp_commit();
    compute(st % S, st);
  }
  kc::gemm_cu::cp_wait<0>();
  // Warpgroup 1's sums to warpgroup 0 through stage 0 (every copy and wgmma done).
  __syncthreads();
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) {
    const float v = accq[i] + accb[i];
    if (wg == 1) asm volatile("st.shared.f32 [%0], %1;\n" ::"r"(sbase + 4 * (i * 128 + tid % 128)), "f"(v));
    out[i] = v;
  }
  __syncthreads();
  if (wg == 0) {
#pragma unroll
    for (int i = 0; i < NX / 2; ++i) {
      float v;
      asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(sbase + 4 * (i * 128 + tid)));
      out[i] += v;
    }
  }
  __syncthreads();  // stage 0 free again (the parts' meeting reuses it)
}

// Output (m, n) of accumulator i held by this thread.
__device__ __forceinline__ int out_n(int n0, int i) {
  return n0 + (threadIdx.x / 32) * 16 + (threadIdx.x % 32) / 4 + 8 * ((i % 4) / 2);
}
__device__ __forceinline__ int out_m(int i) { return (i / 4) * 8 + (threadIdx.x % 4) * 2 + (i % 2); }
#endif

}  // namespace kc::qmv90

// Clusters exist from sm_90 on: the images of older SMs (where this kernel only traps) carry none.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define KC_QMV90_CLUSTER(C)
#else
#define KC_QMV90_CLUSTER(C) __cluster_dims__(C, 1, 1)
#endif

// grid (ceil(N / 64) * C), clusters of C, 128 threads, smem_bytes<BITS, GROUP, NX>() dynamic shared.
template <int BITS, int GROUP, int NX, int C, class Out>
__global__ void KC_QMV90_CLUSTER(C) __launch_bounds__(kc::qmv90::kThreads, (kc::qmv90::min_blocks<BITS, GROUP, NX>()))
kc_qmv90(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
         const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::qmv90;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sraw = uint32_t(__cvta_generic_to_shared(smem)), sbase = (sraw + 1023) & ~1023u;
  const int n0 = (blockIdx.x / C) * kRows, part = blockIdx.x % C;  // a cluster's rank is its part
  float d[NX / 2];
  part_sums<BITS, GROUP, NX>(x, q, s, b, M, N, K, n0, part, C, sbase, d);
  if constexpr (C > 1) {
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* red = reinterpret_cast<float*>(smem + (sbase - sraw));  // stage 0, every copy and wgmma done
    __syncthreads();
    if (part != 0 && threadIdx.x < 128) {
#pragma unroll
      for (int i = 0; i < NX / 2; ++i) red[i * 128 + threadIdx.x] = d[i];
    }
    cluster.sync();
    if (part == 0 && threadIdx.x < 128) {
#pragma unroll
      for (int p = 1; p < C; ++p) {
        const float* rem = cluster.map_shared_rank(red, p);
#pragma unroll
        for (int i = 0; i < NX / 2; ++i) d[i] += rem[i * 128 + threadIdx.x];
      }
    }
    cluster.sync();  // the parts' shared memory stays until part 0 has read it
    if (part != 0) return;
  }
  if (threadIdx.x >= 128) return;  // warpgroup 0 holds the sums
#pragma unroll
  for (int i = 0; i < NX / 2; ++i) {
    const int m = out_m(i), n = out_n(n0, i);
    if (m < M && n < N) kc_store<Out>(y, size_t(m) * N + n, d[i]);
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::qmv90 {
// The host side has internal linkage: a __global__ template's launch stub is local to each translation
// unit, so each one opts in (and launches) its own, and caches its own answers.
namespace {

inline bool use() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}

template <int BITS, int GROUP, int NX, int C, class Out> inline bool ready() {
  static const bool ok = cudaFuncSetAttribute(kc_qmv90<BITS, GROUP, NX, C, Out>,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              smem_bytes<BITS, GROUP, NX>()) == cudaSuccess;
  return ok;
}

// Clusters of the kernel the device holds at once (0 where that cannot be known).
template <int BITS, int GROUP, int NX, int C, class Out> inline int clusters_at_once() {
  static const int n = [] {
    int c = 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(C);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = smem_bytes<BITS, GROUP, NX>();
    if (!ready<BITS, GROUP, NX, C, Out>() || cudaOccupancyMaxActiveClusters(&c, kc_qmv90<BITS, GROUP, NX, C, Out>, &cfg)) {
      (void)cudaGetLastError();
      return 0;
    }
    return c;
  }();
  return n;
}
template <int BITS, int GROUP, int NX, class Out> inline int parts_for(int tiles, int steps) {
  static_assert(kMaxParts == 8, "the part counts tried below");
  if (steps >= 8 && tiles <= clusters_at_once<BITS, GROUP, NX, 8, Out>()) return 8;
  if (steps >= 4 && tiles <= clusters_at_once<BITS, GROUP, NX, 4, Out>()) return 4;
  if (steps >= 2 && tiles <= clusters_at_once<BITS, GROUP, NX, 2, Out>()) return 2;
  return 1;
}

struct Form {
  int nx, parts;
};
template <int BITS, int GROUP, class Out> inline Form form(int M, int N, int K) {
  const int nx = nx_of(M), tiles = (N + kRows - 1) / kRows, steps = (K + kStep - 1) / kStep;
  if (nx == 8) return {8, parts_for<BITS, GROUP, 8, Out>(tiles, steps)};
  if (nx == 16) return {16, parts_for<BITS, GROUP, 16, Out>(tiles, steps)};
  return {32, parts_for<BITS, GROUP, 32, Out>(tiles, steps)};
}

// Longest chain of roundings for an output: a group's sum x q over its GROUP / 16 wgmma steps (each k
// three fp32 roundings, as qmv_depth counts an mma's); sum x no longer; the group's fma into its
// accumulator, the part's chain over its groups (at most ceil(steps / C) * 256 / GROUP, never more
// than K / GROUP); the two accumulators' add; the C - 1 part adds.
inline double depth(long K, long group, int parts) {
  const long steps = (K + kStep - 1) / kStep, per = (steps + parts - 1) / parts;
  long groups = per * (kStep / group);
  if (groups > K / group) groups = K / group;
  return 3.0 * double(group) + double(groups) + 1 + double(parts - 1);
}

template <int BITS, int GROUP, int NX, int C, class Out>
inline void launch_c(const uint16_t* x, const uint32_t* q, const uint16_t* s, const uint16_t* b, Out* y, int M, int N,
                     int K, cudaStream_t st) {
  (void)ready<BITS, GROUP, NX, C, Out>();  // a failed opt-in shows as the launch's error
  const unsigned blocks = unsigned((N + kRows - 1) / kRows) * unsigned(C);
  kc_qmv90<BITS, GROUP, NX, C, Out><<<blocks, kThreads, smem_bytes<BITS, GROUP, NX>(), st>>>(x, q, s, b, y, M, N, K);
}
template <int BITS, int GROUP, int NX, class Out>
inline void launch_nx(const uint16_t* x, const uint32_t* q, const uint16_t* s, const uint16_t* b, Out* y, int M, int N,
                      int K, int C, cudaStream_t st) {
  if (C == 8) launch_c<BITS, GROUP, NX, 8, Out>(x, q, s, b, y, M, N, K, st);
  else if (C == 4) launch_c<BITS, GROUP, NX, 4, Out>(x, q, s, b, y, M, N, K, st);
  else if (C == 2) launch_c<BITS, GROUP, NX, 2, Out>(x, q, s, b, y, M, N, K, st);
  else launch_c<BITS, GROUP, NX, 1, Out>(x, q, s, b, y, M, N, K, st);
}
template <int BITS, int GROUP, class Out>
inline void launch(const void* xv, const void* qv, const void* sv, const void* bv, Out* y, int M, int N, int K,
                   cudaStream_t st) {
  const Form f = form<BITS, GROUP, Out>(M, N, K);
  auto x = static_cast<const uint16_t*>(xv);
  auto q = static_cast<const uint32_t*>(qv);
  auto s = static_cast<const uint16_t*>(sv);
  auto b = static_cast<const uint16_t*>(bv);
  if (f.nx == 8) launch_nx<BITS, GROUP, 8, Out>(x, q, s, b, y, M, N, K, f.parts, st);
  else if (f.nx == 16) launch_nx<BITS, GROUP, 16, Out>(x, q, s, b, y, M, N, K, f.parts, st);
  else launch_nx<BITS, GROUP, 32, Out>(x, q, s, b, y, M, N, K, f.parts, st);
}

}  // namespace
}  // namespace kc::qmv90
