// MLX affine-quantized decode projection, 1..32 rows: y[m,n] = sum_g s[n,g] sum x q + b[n,g] sum x,
// bits 2, 3, 4, 5, 6 or 8, groups of 32, 64 or 128, bf16 x, s and b, fp32 sums, bf16 or fp32 out.
// On tensor cores (mma.sync m16n8k16, kc_gpu.h): a code q is exact in bf16, so sum x q is an mma
// of the codes against x; sum x is an mma of x (as A, two 8-row x pieces filling its 16 rows)
// against ones.
//
// A block of 8 warps owns a W tile of 16 WT rows at a time (qmv_w_tiles: two mma tiles at most
// 9..32 rows, so each x load serves 32 W rows) and every x row it serves (8 * MT: up to 32 in one
// block), so each code word is loaded once and used for all rows; a block walks tiles blockIdx.x,
// + gridDim.x, ... (a grid of the blocks the device holds at once). K is cut into
// 256-code steps, step r to warp slice r % 8. In a step, lane 4g + t takes, for each of its 8 pairs
// p of mma steps, 8 codes of W rows g and g + 8 and the 16 bytes of x row g of each x tile at the
// same k (through L1: x is shared by every block; at WT = 2 the codes of rows g + 16, g + 24 too):
// at 3, 5 and 6 bits (and 2 bits in groups of 32) k = 256 r + 32 p + 8 t (the one or two words
// that hold them); at 2, 4 and 8 bits the lane reads the codes of kSpan pairs (all of a group's, up
// to 4) as one run of words, k = 256 r + 32 kSpan c + 8 (kSpan t + i) for pair kSpan c + i. Either
// way a pair's quad covers 32 k of one group, and the 8 codes fill the lane's k slots of the pair's
// two mma steps (any permutation of k may stand for the 16 slots, as long as codes and x share it).
// Codes become bf16 pairs (2e, 2e + 1), the order of x's words, in registers (128 + q by its bits,
// minus 128; 8 bits through fp32: exact).
// Summation order, per output: for each group of the slice (in increasing k) its sum x q is a chain
// of mma steps from zero (group / 16 steps); its sum x, per x row, two chains from zero of group / 32
// mma steps (a step a pair: the lane's 8 x, as loaded, fill its slots of A's rows g and g + 8 against
// ones), then added. At one x tile the group's term s (sum x q) + b (sum x) (one multiply, one fma)
// is added to the slice's fp32 accumulator; at more, s (sum x q) and b (sum x) go by one fma each
// into two accumulators, added when the slice's tile is done. The 8 slices then meet in slice order
// in shared memory.
// Fault plants one fault for the controls (controls/cuda/affine_*).
// On an sm_90 device whose loaded image is sm_90a, launch_qmv takes the bulk-copy form at 4 and 8 bits
// (2 bits in groups of 64 and 128), 1..8 rows and the K it fits (qmv_sm90a.cuh), launched chained
// behind the kernel ahead (its weights stream before that one ends: they must not be what it
// writes); the controls' faults stay in this kernel. This kernel, too, launches chained where its
// grid fills the device (launch_qmv_mt), waiting on the kernel ahead before any load.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "../../common/kc_gpu.h"

namespace kc::affine_cu {

constexpr int kSlices = 8;                  // K slices: warps of a block
constexpr int kRowsW = 16;                  // W rows of an mma tile (a block's, at WT = 1)
constexpr int kRowsPerBlock = kRowsW;       // (the controls' tile: 1..8 rows, WT = 1)
constexpr int kRowsX = 8;                   // x rows of an mma tile
constexpr int kStepK = 256;                 // codes a warp takes at a time: 8 pairs of 32
constexpr int kTileK = kSlices * kStepK;    // 2,048: K the slices cover before repeating
constexpr int kLaneStrideK = kTileK;        // (the name the controls' tiles use)

enum class Fault : int { none, fold_scale, reversed_code, first_scale };

// W tiles of 16 rows a block owns at once (WT), by bits, group and x tiles. Beyond 8 rows the x
// loads through L1 bound the kernel (they are re-read for every W tile): two tiles halve them. On
// the H200 (bench history, sixteenth session) two were faster at 9..32 rows but where the 16-row
// kernel lost (2 bits; groups of 32); at 32 rows they fit without spilling only at 2 bits and at 4
// bits in groups up to 64 (gate 5 allows no stack frame). HIP keeps one: never measured there.
constexpr int qmv_w_tiles(int bits, int group, int mt) {
#if defined(__HIPCC__)
  return (void)bits, (void)group, (void)mt, 1;
#else
  if (mt == 4) return bits == 2 || (bits == 4 && group <= 64) ? 2 : 1;
  return mt == 2 && bits != 2 && group != 32 ? 2 : 1;
#endif
}
// W rows of the widest tile any launch of the entry takes: its n tile (16 divides it).
constexpr int kRowsWMost = 2 * kRowsW;

// x tiles (of 8 rows) a block takes: every row a launch serves (up to 32) in one block.
inline int qmv_tiles(int M) { return M <= 8 ? 1 : M <= 16 ? 2 : 4; }

// Longest chain of roundings for an output: a group's sum x q over its group / 16 mma steps, each k
// counted as three fp32 roundings (an mma's internal alignment may truncate rather than round: NVIDIA
// does not document it; the count dense/gemm uses); sum x is no longer (two chains of group / 32
// steps and their add: 3 group / 2 + 1); the group's b * sum x and fma, or its one fma and the two
// accumulators' add (no longer); the slice's chain over its groups (at most ceil(ceil(k / 256) / 8)
// steps of 256 / group groups, and never more than k / group); the 7 slice adds.
inline double qmv_depth(long K, long group) {
  const long steps = (K + kStepK - 1) / kStepK;
  long groups = (steps + kSlices - 1) / kSlices * (kStepK / group);
  if (groups > K / group) groups = K / group;
  return 3.0 * double(group) + 2 + double(groups) + double(kSlices - 1);
}

// What qmv's device units (qmv_b<BITS>.cu: one a bit width, so that they build side by side; the body
// is qmv_unit.cuh) export to its registration (cuda.cpp) for a width and group: the answers and
// launchers of the unit's own kernels (a __global__ template's launch stub, and so the bulk-copy
// form's opt-in, is each unit's own).
template <int BITS, int GROUP> struct QmvUnit {
  static bool bulk_used();              // takes the bulk-copy form anywhere (qmv_sm90a.cuh; never under HIP)
  static bool bulk(int M, int K);       // launch_qmv takes it at this shape
  static double depth(long M, long K);  // the depth of the form launch_qmv takes (qmv_depth_at)
  static void prepare();                // opts in its bulk-copy kernels where this process takes them
  // launch_qmv: bf16 x [M x K], codes q, scales s and biases b of W [N x K], bf16 y [M x N].
  static void launch(const void* x, const void* q, const void* s, const void* b, void* y, int M, int N, int K,
                     void* stream);
};

}  // namespace kc::affine_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include "../../common/kc_store.cuh"

#if defined(__CUDACC__)
#include <cstdint>
#endif
#include <type_traits>

namespace kc::affine_cu {

__device__ __forceinline__ float bf(uint16_t h) { return __uint_as_float(uint32_t(h) << 16); }

// Two codes (each < 256) packed as qa | qb << 16, as a bf16 pair (low half first); exact. Where the
// codes still have other bits beside them, `keep` masks them off in the same step (for BITS <= 7 on
// nvcc: (w & keep) | 0x4300 in each half is one lop3, the magic in a register; written in C++, nvcc
// emits an and and an or, each constant an immediate).
template <int BITS> __device__ __forceinline__ uint32_t codes_bf16x2(uint32_t packed, uint32_t keep = 0xffffffffu) {
#if defined(__CUDACC__)
  if constexpr (BITS <= 7) {
    // 0x4300 | q is the bf16 128 + q (7 mantissa bits); take 128 away in bf16, exactly (128 given as
    // bits: a converted constant stays a conversion in the loop).
    uint32_t p;
    const uint32_t c = 0x43004300u;
    asm("lop3.b32 %0, %1, %2, %3, 0xEA;" : "=r"(p) : "r"(packed), "r"(keep), "r"(c));  // (a & b) | c
    __nv_bfloat162 v = __hsub2(*reinterpret_cast<__nv_bfloat162*>(&p), *reinterpret_cast<const __nv_bfloat162*>(&c));
    return *reinterpret_cast<uint32_t*>(&v);
  }
#endif
  packed &= keep;
  // 2^23 + q is exact in fp32; less 2^23 leaves q, whose fp32 bits end in 16 zeros for q < 256.
  const float fa = __uint_as_float(0x4B000000u | (packed & 0xffffu)) - 8388608.f;
  const float fb = __uint_as_float(0x4B000000u | (packed >> 16)) - 8388608.f;
  return (__float_as_uint(fa) >> 16) | (__float_as_uint(fb) & 0xffff0000u);
}

// The lane's 8 codes of a pair (8 BITS bits from bit o of hi:lo; hi only where they reach past lo) as 4
// bf16 pairs, pair e = codes 2e, 2e + 1 (low half first), so x's words pair with them as loaded.
// A pair is cut by prmt from two 16-bit windows of the codes, one BITS above the other (one window
// holds code 2e, the other code 2e + 1 at the same bit), so one mask lifts both codes.
template <int BITS> __device__ __forceinline__ void codes8_bf16(uint32_t lo, uint32_t hi, int o, uint32_t (&cw)[4]) {
  if constexpr (BITS == 8) {
    // 0x4B0000qq is 2^23 + q in fp32; less 2^23 leaves q, whose high half is bf16 q: pack two.
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const uint32_t w = e < 2 ? lo : hi, j = (2 * e) % 4;
      const float fa = __uint_as_float(kc_prmt(w, 0x4B000000u, 0x7440u | j)) - 8388608.f;
      const float fb = __uint_as_float(kc_prmt(w, 0x4B000000u, 0x7440u | (j + 1))) - 8388608.f;
      cw[e] = kc_prmt(__float_as_uint(fa), __float_as_uint(fb), 0x7632u);
    }
  } else {
    const uint64_t v = BITS == 4 ? lo : BITS == 2 ? lo >> o : (uint64_t(hi) << 32 | lo) >> o;
    auto win = [&](int s) { return uint32_t(v >> s); };  // s constant once unrolled
    constexpr uint32_t m = (1u << BITS) - 1;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int p = 2 * e * BITS, base = p / 16 * 16;  // code 2e's bit; its 16-bit window
      uint32_t u;
      int sh;
      if (p - base + BITS <= 16) {  // both halves of one word pair's windows: shared by their codes
        const int w0 = base / 32 * 32;
        u = kc_prmt(win(w0), win(w0 + BITS), base % 32 ? 0x7632u : 0x5410u);
        sh = p - base;
      } else {
        u = kc_prmt(win(p), win(p + BITS), 0x5410u);
        sh = 0;
      }
      cw[e] = codes_bf16x2<BITS>(u >> sh, m | m << 16);
    }
  }
}

}  // namespace kc::affine_cu

#if defined(__CUDACC__)
// After the code helpers it shares (codes_bf16x2). CUDA only: the HIP build has no bulk-copy form.
#include "qmv_sm90a.cuh"
#endif

// grid (min(ceil(N / 16 WT), resident blocks), ceil(M / 8 MT)), 256 threads (8 warps: the K slices).
// A block walks its W tiles (blockIdx.x, + gridDim.x, ...); each warp loads its next step,
// of this tile or the next, before it sums the current one, so loads stay in flight across tiles.
// Blocks an SM: on sm_90, up to 8 rows, 2 and 4 bits in groups up to 64 fit 80 registers (three
// blocks, more warps to hide latency), the others 128; beyond 8 rows a lane holds 8 or 16 x vectors:
// one block leaves them their registers. Other targets schedule the same code into more registers:
// 2 and 4 bits get 128, the rest one block, so that none spills (sm_80 to sm_121).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900
#define KC_QMV_BLOCKS(BITS, GROUP, MT) (MT == 1 && (BITS == 2 || BITS == 4) ? 2 : 1)
#else
#define KC_QMV_BLOCKS(BITS, GROUP, MT) (MT == 1 ? ((BITS == 2 || BITS == 4) && GROUP <= 64 ? 3 : 2) : 1)
#endif
template <int BITS, int GROUP, int MT, class Out, kc::affine_cu::Fault F = kc::affine_cu::Fault::none>
__global__ void __launch_bounds__(256, KC_QMV_BLOCKS(BITS, GROUP, MT))
kc_affine_qmv(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
              const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::affine_cu;
  constexpr int WT = qmv_w_tiles(BITS, GROUP, MT);
  constexpr int kTileN = kRowsW * WT;  // the block's W rows
  constexpr int kH = 2 * WT;           // 8-row W halves a lane serves: rows g + 8 h
  static_assert(GROUP % 32 == 0 && kStepK % GROUP == 0, "a pair of mma steps lies in one group");
  constexpr int kPairs = kStepK / 32, kPairsGroup = GROUP / 32, kGroupsStep = kStepK / GROUP;
  constexpr uint32_t kMask = (1u << BITS) - 1;
  constexpr bool kHi = BITS == 3 || BITS == 5 || BITS == 6 || BITS == 8;  // codes may reach a 2nd word
  constexpr int kSB = (kGroupsStep + 3) / 4;
  // Two buffers of the slices' sums at WT = 1; one at WT = 2 (two would pass 48 KiB of static shared).
  __shared__ float red[WT > 1 ? 1 : 2][kSlices][WT * MT * 4][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * kRowsX * MT;
  const int wpr = K / 32 * BITS, G = K / GROUP;  // words and groups a row
  const int tiles = (N + kTileN - 1) / kTileN, steps = (K + kStepK - 1) / kStepK;
  const bool active = warp < steps;
  const int ms = active ? (steps - warp + kSlices - 1) / kSlices : 1;  // the warp's steps a tile
#if defined(__CUDACC__)
  if constexpr (F == Fault::none) {  // launched chained (launch_qmv_mt): nothing read before the wait
    kc_let_next_start();
    kc_wait_ahead();
  }
#endif
  // The lane's 8 codes of a pair start at bit 8 t BITS of the pair's words: word t BITS / 4, bit o.
  const int wofs = (t * BITS) / 4, o = (8 * t * BITS) % 32;
  const bool two = kHi && o + 8 * BITS > 32;
  // At 2, 4 and 8 bits a lane takes kSpan pairs (as many as lie in a group, up to 4; at least a word)
  // from one run of its row's words, in one load: pair p = kSpan c + i takes k = 256 r + 32 kSpan c +
  // 8 (kSpan t + i), so a pair's quad still reads 32 k of one group (fewer, wider loads).
  constexpr int kSpan = (BITS == 4 || BITS == 8 || (BITS == 2 && GROUP >= 64)) ? (GROUP / 32 < 4 ? GROUP / 32 : 4) : 1;
  constexpr int kRun = kSpan * BITS / 4;  // words of a lane's run
  // Pair p's k past the step's start: the lane's part (kSpan or 1 times 8 t) and the pair's (a constant).
  constexpr int kLaneK = 8 * kSpan;
  auto pair_k = [](int p) { return kSpan > 1 ? 32 * kSpan * (p / kSpan) + 8 * (p % kSpan) : 32 * p; };
  const uint16_t* xr[MT];  // the lane's first x of a step's first pair, less the step's start
  bool xok[MT];
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    const int m = m0 + i * kRowsX + g;
    xok[i] = m < M;
    xr[i] = x + (size_t(xok[i] ? m : 0) * K + kLaneK * t);
  }
  auto pair_o = [&](int p) { return kSpan > 1 ? (BITS == 2 ? 16 * (p % 2) : 0) : o; };  // bit of the codes
  constexpr uint32_t kOnes = 0x3F803F80u;  // bf16 1.0 pairs

  // A step's loads from memory: its code words, and its scales and biases shared out over the quad
  // (lane t holds groups t, t + 4 of the step; a group's are fetched from their lane when summed).
  struct Buf {
    uint32_t lo[kPairs][kH], hi[kPairs][kH], sb[kSB][kH];
  };
  auto load = [&](Buf& d, int tile, int r) {
    const int kb = r * kStepK;
    // A step's words of a row lie at fixed offsets from one address, so every load but the first is
    // an immediate offset; steps whole in K of tiles whole in N (all but the edges) test no load.
    auto rows = [&](auto whole) {
      constexpr bool kWhole = decltype(whole)::value;
#pragma unroll
      for (int h = 0; h < kH; ++h) {
        const int n = tile * kTileN + g + 8 * h;
        const bool ok = kWhole || n < N;
        const size_t row = size_t(ok ? n : 0);
        // The lane's first word of the step; every load below is a constant offset from it.
        const uint32_t* qs =
            q + (row * unsigned(wpr) + unsigned(r) * unsigned(kStepK / 32 * BITS)) + (kSpan > 1 ? kRun * t : wofs);
        if constexpr (kSpan > 1) {
#pragma unroll
          for (int c = 0; c < kPairs / kSpan; ++c) {
            const bool in = kWhole || (ok && kb + 32 * kSpan * c < K);
            const uint32_t* src = qs + c * kSpan * BITS;
            uint32_t w[kRun];
            if constexpr (kRun == 1) {
              w[0] = in ? __ldcs(src) : 0u;
            } else if constexpr (kRun == 2) {
              const uint2 v = in ? __ldcs(reinterpret_cast<const uint2*>(src)) : make_uint2(0, 0);
              w[0] = v.x, w[1] = v.y;
            } else {
#pragma unroll
              for (int u = 0; u < kRun / 4; ++u) {
                const uint4 v = in ? __ldcs(reinterpret_cast<const uint4*>(src) + u) : make_uint4(0, 0, 0, 0);
                w[4 * u] = v.x, w[4 * u + 1] = v.y, w[4 * u + 2] = v.z, w[4 * u + 3] = v.w;
              }
            }
#pragma unroll
            for (int i = 0; i < kSpan; ++i) {
              const int p = kSpan * c + i;
              d.lo[p][h] = BITS == 8 ? w[2 * i] : BITS == 4 ? w[i] : w[i / 2];
              d.hi[p][h] = BITS == 8 ? w[2 * i + 1] : 0u;
            }
          }
        } else {
#pragma unroll
          for (int p = 0; p < kPairs; ++p) {
            const bool in = kWhole || (ok && kb + 32 * p < K);
            const uint32_t* src = qs + p * BITS;
            d.lo[p][h] = in ? __ldcs(src) : 0u;
            d.hi[p][h] = (in && two) ? __ldcs(src + 1) : 0u;
          }
        }
        const size_t sbrow = row * unsigned(G), sbt = sbrow + (unsigned(r) * kGroupsStep + unsigned(t));
#pragma unroll
        for (int j = 0; j < kSB; ++j) {
          const int gi = t + 4 * j;
          const bool in = gi < kGroupsStep && (kWhole || (ok && kb + gi * GROUP < K));
          d.sb[j][h] = in ? uint32_t(__ldg(F == Fault::first_scale ? s + sbrow : s + sbt + 4 * j)) |
                                uint32_t(__ldg(b + sbt + 4 * j)) << 16
                          : 0u;
        }
      }
    };
    if ((tile + 1) * kTileN <= N && kb + kStepK <= K) rows(std::true_type{});
    else rows(std::false_type{});
  };

  // The slice's sums: one accumulator of the groups' terms s (sum x q) + b (sum x) at one x tile (80
  // registers on sm_90); beyond, the two products' sums apart (one fma each, no multiply and add),
  // added when the tile is done. Per W tile w of the block's WT.
  constexpr bool kApart = MT > 1;
  float accq[WT][MT][4], accb[WT][MT][4];
  auto compute = [&](const Buf& d, int r) {
    const int kb = r * kStepK;
    const uint16_t* xs[MT];
#pragma unroll
    for (int i = 0; i < MT; ++i) xs[i] = xr[i] + kb;
#pragma unroll
    for (int gi = 0; gi < kGroupsStep; ++gi) {
      if (kb + gi * GROUP >= K) break;  // groups are whole: K is a multiple of GROUP
      float cq[WT][MT][4], cs[MT][4];
#pragma unroll
      for (int w = 0; w < WT; ++w)
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
          for (int c = 0; c < 4; ++c) cq[w][i][c] = 0.f;
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int c = 0; c < 4; ++c) cs[i][c] = 0.f;
#pragma unroll
      for (int pp = 0; pp < kPairsGroup; ++pp) {
        const int p = gi * kPairsGroup + pp;
        uint32_t xw[MT][4];
#pragma unroll
        for (int i = 0; i < MT; ++i) {
          const uint4 v = xok[i] ? __ldg(reinterpret_cast<const uint4*>(xs[i] + pair_k(p))) : make_uint4(0, 0, 0, 0);
          xw[i][0] = v.x, xw[i][1] = v.y, xw[i][2] = v.z, xw[i][3] = v.w;
        }
        uint32_t cw[kH][4];  // rows g + 8 h: the lane's 8 codes as 4 bf16 pairs (2e, 2e + 1)
#pragma unroll
        for (int h = 0; h < kH; ++h) {
          if constexpr (F == Fault::reversed_code) {  // the 8 codes one by one, in reverse
            const uint64_t v = ((uint64_t(d.hi[p][h]) << 32) | d.lo[p][h]) >> pair_o(p);
            uint32_t c8[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) c8[7 - e] = uint32_t(v >> (e * BITS)) & kMask;
#pragma unroll
            for (int e = 0; e < 4; ++e) cw[h][e] = codes_bf16x2<BITS>(c8[2 * e] | c8[2 * e + 1] << 16);
          } else {
            codes8_bf16<BITS>(d.lo[p][h], d.hi[p][h], pair_o(p), cw[h]);
          }
        }
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
          for (int w = 0; w < WT; ++w) {  // W tile w: rows 16 w + g (A's row g) and 16 w + g + 8
            const uint32_t af[4] = {cw[2 * w][2 * j], cw[2 * w + 1][2 * j], cw[2 * w][2 * j + 1],
                                    cw[2 * w + 1][2 * j + 1]};
#pragma unroll
            for (int i = 0; i < MT; ++i) kc_mma_m16n8k16_bf16(cq[w][i], af, xw[i][2 * j], xw[i][2 * j + 1]);
          }
        // sum x: the lane's 8 x of the pair, as loaded, are its slots of A's rows g (words 0, 2) and
        // g + 8 (words 1, 3), against ones (no register moves: the words stay where they landed).
#pragma unroll
        for (int i = 0; i < MT; ++i) kc_mma_m16n8k16_bf16(cs[i], xw[i], kOnes, kOnes);
      }
      // Lane 4g + t holds sum x of x row g of each tile; the mma's columns 2t, 2t + 1 are x rows
      // 2t, 2t + 1 of lanes 8t and 8t + 4.
      float sxr[MT];
#pragma unroll
      for (int i = 0; i < MT; ++i) sxr[i] = cs[i][0] + cs[i][2];
      float sv[kH], bv[kH];
#pragma unroll
      for (int h = 0; h < kH; ++h) {  // this group's scale and bias from lane 4g + gi % 4
        const uint32_t w = __float_as_uint(__shfl_sync(0xffffffffu, __uint_as_float(d.sb[gi / 4][h]), 4 * g + gi % 4));
        sv[h] = bf(uint16_t(w & 0xffffu));
        bv[h] = bf(uint16_t(w >> 16));
      }
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const float sx[2] = {__shfl_sync(0xffffffffu, sxr[i], 8 * t), __shfl_sync(0xffffffffu, sxr[i], 8 * t + 4)};
#pragma unroll
        for (int w = 0; w < WT; ++w)
#pragma unroll
          for (int c = 0; c < 4; ++c) {
            const float ss = sv[2 * w + (c >> 1)], bb = bv[2 * w + (c >> 1)], xs = sx[c & 1];
            float& aq = accq[w][i][c];
            if (F == Fault::fold_scale) {
              aq += ss * (cq[w][i][c] + __bfloat162float(__float2bfloat16_rn(bb / ss)) * xs);
            } else if (kApart) {
              aq = fmaf(ss, cq[w][i][c], aq);
              accb[w][i][c] = fmaf(bb, xs, accb[w][i][c]);
            } else {
              aq += fmaf(ss, cq[w][i][c], bb * xs);
            }
          }
      }
    }
  };

  // A tile's 8 slices meet in shared memory (two buffers: the barrier of tile j + 1 comes after every
  // thread's reads of tile j, so tile j + 2 may write its buffer; at WT = 2 one, and a second barrier
  // after the reads).
  auto finish = [&](int tile, int par) {
    if constexpr (WT > 1) par = 0;
#pragma unroll
    for (int w = 0; w < WT; ++w)
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          // no + 0 to a -0
          red[par][warp][(w * MT + i) * 4 + c][lane] = kApart ? accq[w][i][c] + accb[w][i][c] : accq[w][i][c];
          accq[w][i][c] = 0.f, accb[w][i][c] = 0.f;
        }
    __syncthreads();
    const int n0 = tile * kTileN;
    for (int e = threadIdx.x; e < WT * MT * 4 * 32; e += 256) {
      const int qd = e / 32, ln = e % 32, w = qd / (MT * 4), i = qd / 4 % MT, c = qd % 4;
      const int n = n0 + 16 * w + (ln >> 2) + 8 * (c >> 1), m = m0 + i * kRowsX + 2 * (ln & 3) + (c & 1);
      if (n < N && m < M) {
        float v = red[par][0][qd][ln];
#pragma unroll
        for (int k = 1; k < kSlices; ++k) v += red[par][k][qd][ln];
        kc_store<Out>(y, size_t(m) * N + n, v);
      }
    }
    if constexpr (WT > 1) __syncthreads();
  };

  int tile = blockIdx.x, st = 0, par = 0;
  if (tile >= tiles) return;
#pragma unroll
  for (int w = 0; w < WT; ++w)
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int c = 0; c < 4; ++c) accq[w][i][c] = 0.f, accb[w][i][c] = 0.f;
  Buf A, B;
  if (active) load(A, tile, warp);
  // One item: prefetch the next (step st + 1 of this tile, or the first of the next tile), sum this.
  auto item = [&](Buf& cur, Buf& nxt) {
    int t1 = tile, s1 = st + 1;
    if (s1 == ms) t1 += gridDim.x, s1 = 0;
    if (active && t1 < tiles) load(nxt, t1, warp + kSlices * s1);
    if (active) compute(cur, warp + kSlices * st);
    if (s1 == 0) {
      finish(tile, par);
      par ^= 1;
    }
    tile = t1, st = s1;
    return tile < tiles;
  };
  while (item(A, B) && item(B, A)) {
  }
}

namespace kc::affine_cu {


// Does the bulk-copy form (qmv_sm90a.cuh) have this width and group? Never under HIP.
template <int BITS, int GROUP> constexpr bool qmv_bulk_has() {
#if defined(__CUDACC__)
  return kc::qmv90::serves(BITS, GROUP);
#else
  return false;
#endif
}
// Does launch_qmv take the bulk-copy form at this shape (qmv_sm90a.cuh)? Never under HIP.
template <int BITS, int GROUP> inline bool qmv_bulk(int M, int K) {
#if defined(__CUDACC__)
  return kc::qmv90::fits<BITS, GROUP>(M, K) && kc::qmv90::use();
#else
  (void)M, (void)K;
  return false;
#endif
}
// Does this process take the bulk-copy form anywhere? Never under HIP.
inline bool qmv_bulk_used() {
#if defined(__CUDACC__)
  return kc::qmv90::use();
#else
  return false;
#endif
}
// The depth of the form launch_qmv takes.
template <int BITS, int GROUP> inline double qmv_depth_at(long M, long K) {
#if defined(__CUDACC__)
  if (qmv_bulk<BITS, GROUP>(int(M), int(K))) return kc::qmv90::depth<BITS>(K, GROUP);
#endif
  return qmv_depth(K, GROUP);
}

// Host side with internal linkage: the bulk-copy form's launch stubs and opt-in are each translation
// unit's own (gemv.cuh: GemvUnit).
namespace {
// Opts in this translation unit's bulk-copy kernels where this process takes them (an entry is built
// before gate 5 checks each launch's dynamic shared bytes on the device).
template <int BITS, int GROUP, class Out> inline void qmv_prepare() {
#if defined(__CUDACC__)
  if constexpr (kc::qmv90::serves(BITS, GROUP))
    if (kc::qmv90::use()) (void)kc::qmv90::prepare<BITS, GROUP, Out>();
#endif
}
// A grid of the blocks the device holds at once, each walking W tiles (a block a tile where that is
// not known).
template <int BITS, int GROUP, int MT, class Out, Fault F>
inline void launch_qmv_mt(const uint16_t* x, const uint32_t* q, const uint16_t* s, const uint16_t* b, Out* y, int M,
                          int N, int K, cudaStream_t st) {
  static const int most =
      kc_resident_blocks(reinterpret_cast<const void*>(kc_affine_qmv<BITS, GROUP, MT, Out, F>), 256);
  constexpr int rows = kRowsW * qmv_w_tiles(BITS, GROUP, MT);
  const int tiles = (N + rows - 1) / rows, ty = (M + kRowsX * MT - 1) / (kRowsX * MT);
  const int per = most / ty;
  const dim3 grid(per > 0 && tiles > per ? per : tiles, ty);
#if defined(__CUDACC__)
  // Chained (kc_pdl.cuh: only its launch's latency hides, the kernel waits first) where the grid
  // leaves fewer free block slots than SMs; with more, the next grid's blocks would settle on idle
  // SMs while this one runs and leave the SMs unevenly loaded after it (H200, bench history: full
  // grids ~1 us faster, 8 rows at 4,096 x 14,336 with 140 slots free 22.5 -> 25.5 us chained).
  if constexpr (F == Fault::none)
    if (most > 0 && most - int(grid.x * grid.y) < kc_sm_count() && kc_chains_here()) {
      (void)kc_launch_chained(kc_affine_qmv<BITS, GROUP, MT, Out, F>, grid, dim3(256), 0, st, x, q, s, b, y, M, N, K);
      return;
    }
#endif
  kc_affine_qmv<BITS, GROUP, MT, Out, F><<<grid, 256, 0, st>>>(x, q, s, b, y, M, N, K);
}

template <int BITS, int GROUP, class Out, Fault F = Fault::none>
inline void launch_qmv(const void* x, const void* q, const void* s, const void* b, Out* y, int M, int N, int K,
                       cudaStream_t st) {
#if defined(__CUDACC__)
  if constexpr (kc::qmv90::serves(BITS, GROUP) && F == Fault::none)
    if (qmv_bulk<BITS, GROUP>(M, K)) return kc::qmv90::launch<BITS, GROUP, Out>(x, q, s, b, y, M, N, K, st);
#endif
  const int mt = qmv_tiles(M);
  auto xx = static_cast<const uint16_t*>(x);
  auto qq = static_cast<const uint32_t*>(q);
  auto ss = static_cast<const uint16_t*>(s);
  auto bb = static_cast<const uint16_t*>(b);
  if (mt == 1) launch_qmv_mt<BITS, GROUP, 1, Out, F>(xx, qq, ss, bb, y, M, N, K, st);
  else if (mt == 2) launch_qmv_mt<BITS, GROUP, 2, Out, F>(xx, qq, ss, bb, y, M, N, K, st);
  else launch_qmv_mt<BITS, GROUP, 4, Out, F>(xx, qq, ss, bb, y, M, N, K, st);
}
}  // namespace

}  // namespace kc::affine_cu
#endif
