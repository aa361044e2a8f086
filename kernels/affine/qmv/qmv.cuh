// MLX affine-quantized decode projection, 1..32 rows: y[m,n] = sum_g s[n,g] sum x q + b[n,g] sum x,
// bits 2, 3, 4, 5, 6 or 8, groups of 32, 64 or 128, bf16 x, s and b, fp32 sums, bf16 or fp32 out.
// On tensor cores (mma.sync m16n8k16, kc_gpu.h): a code q is exact in bf16, so sum x q is an mma
// of the codes against x, and sum x an mma of ones against the same x.
//
// A block of 8 warps owns 16 W rows and every x row it serves (8 * MT: up to 32 in one block), so
// each code word is loaded once and used for all rows. K is cut into 256-code steps, step r to warp
// slice r % 8. In a step, lane 4g + t takes, for each of its 8 pairs p of mma steps, the 8 codes at
// k = 256 r + 32 p + 8 t of W rows g and g + 8 (the one or two words that hold them: a quad reads a
// pair's 4 * bits contiguous bytes) and the 16 bytes of x row g of each x tile at the same k (through
// L1: x is shared by every block). The 8 codes fill the lane's k slots of the pair's two mma steps
// (any permutation of k may stand for the 16 slots, as long as codes and x share it; a pair lies
// inside one group, since groups are multiples of 32). Codes become bf16 in registers (128 + q by
// its bits, minus 128: exact).
// Summation order, per output: for each group of the slice (in increasing k) its sum x q and its
// sum x are chains of mma steps from zero (group / 16 steps each); the group's term s (sum x q) +
// b (sum x) (one multiply, one fma) is added to the slice's fp32 accumulator; the 8 slices then meet
// in slice order in shared memory.
// Fault plants one fault for the controls (controls/cuda/affine_*).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "../../common/kc_gpu.h"
#include "../../common/kc_store.cuh"

#if defined(__CUDACC__)
#include <cstdint>
#endif

namespace kc::affine_cu {

constexpr int kSlices = 8;                  // K slices: warps of a block
constexpr int kRowsW = 16;                  // W rows a block (an mma tile)
constexpr int kRowsPerBlock = kRowsW;       // (the name the controls' tiles use)
constexpr int kRowsX = 8;                   // x rows of an mma tile
constexpr int kStepK = 256;                 // codes a warp takes at a time: 8 pairs of 32
constexpr int kTileK = kSlices * kStepK;    // 2,048: K the slices cover before repeating
constexpr int kLaneStrideK = kTileK;        // (the name the controls' tiles use)

enum class Fault : int { none, fold_scale, reversed_code, first_scale };

__device__ __forceinline__ float bf(uint16_t h) { return __uint_as_float(uint32_t(h) << 16); }

// Two codes (each < 256) packed as qa | qb << 16, as a bf16 pair (low half first); exact.
template <int BITS> __device__ __forceinline__ uint32_t codes_bf16x2(uint32_t packed) {
#if defined(__CUDACC__)
  if constexpr (BITS <= 7) {
    // 0x4300 | q is the bf16 128 + q (7 mantissa bits); take 128 away in bf16, exactly.
    uint32_t p = packed | 0x43004300u;
    __nv_bfloat162 v = *reinterpret_cast<__nv_bfloat162*>(&p);
    v = __hsub2(v, __floats2bfloat162_rn(128.f, 128.f));
    return *reinterpret_cast<uint32_t*>(&v);
  }
#endif
  // 2^23 + q is exact in fp32; less 2^23 leaves q, whose fp32 bits end in 16 zeros for q < 256.
  const float fa = __uint_as_float(0x4B000000u | (packed & 0xffffu)) - 8388608.f;
  const float fb = __uint_as_float(0x4B000000u | (packed >> 16)) - 8388608.f;
  return (__float_as_uint(fa) >> 16) | (__float_as_uint(fb) & 0xffff0000u);
}

}  // namespace kc::affine_cu

// grid (ceil(N / 16), ceil(M / 8 MT)), 256 threads (8 warps: the K slices). Beyond 8 rows a lane
// holds two steps' code words and 8 or 16 x vectors: one block an SM leaves them their registers
// unspilled (128 registers spill some forms on sm_80 to sm_121).
template <int BITS, int GROUP, int MT, class Out, kc::affine_cu::Fault F = kc::affine_cu::Fault::none>
__global__ void __launch_bounds__(256, MT == 1 ? 2 : 1)
kc_affine_qmv(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
              const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::affine_cu;
  static_assert(GROUP % 32 == 0 && kStepK % GROUP == 0, "a pair of mma steps lies in one group");
  constexpr int kPairs = kStepK / 32, kPairsGroup = GROUP / 32, kGroupsStep = kStepK / GROUP;
  constexpr uint32_t kMask = (1u << BITS) - 1;
  // Pair codes e, e + 4 (and x alike) where the bits allow it cheaply; the reversed-code control
  // keeps the plain order, where its fault is written.
  constexpr bool kSpread = (BITS == 2 || BITS == 4) && F != kc::affine_cu::Fault::reversed_code;
  __shared__ float red[kSlices][MT * 4][32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRowsW, m0 = blockIdx.y * kRowsX * MT;
  const int wpr = K / 32 * BITS, G = K / GROUP;  // words and groups a row
  const uint32_t* qr[2];
  const uint16_t *sr[2], *br[2];
  bool wok[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = n0 + g + 8 * h;
    wok[h] = n < N;
    qr[h] = q + size_t(wok[h] ? n : 0) * wpr;
    sr[h] = s + size_t(wok[h] ? n : 0) * G;
    br[h] = b + size_t(wok[h] ? n : 0) * G;
  }
  const uint16_t* xr[MT];
  bool xok[MT];
#pragma unroll
  for (int i = 0; i < MT; ++i) {
    const int m = m0 + i * kRowsX + g;
    xok[i] = m < M;
    xr[i] = x + size_t(xok[i] ? m : 0) * K;
  }
  // The lane's 8 codes of a pair start at bit 8 t BITS of the pair's words: word t BITS / 4, bit o.
  const int wofs = (t * BITS) / 4, o = (8 * t * BITS) % 32;
  const bool two = o + 8 * BITS > 32;
  const uint32_t ones[4] = {0x3F803F80u, 0x3F803F80u, 0x3F803F80u, 0x3F803F80u};  // bf16 1.0 pairs
  float acc[MT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[i][c] = 0.f;

  // A step's loads from memory: its code words, and its scales and biases shared out over the quad
  // (lane t holds groups t, t + 4 of the step; a group's are fetched from their lane when summed).
  // The next step's are issued before this step is summed, so a warp always has loads in flight.
  constexpr int kSB = (kGroupsStep + 3) / 4;
  const int steps = (K + kStepK - 1) / kStepK;
  uint32_t lo[kPairs][2], hi[kPairs][2], sb[kSB][2];
  auto load_step = [&](int r, uint32_t (&l)[kPairs][2], uint32_t (&u)[kPairs][2], uint32_t (&v)[kSB][2]) {
    const int kb = r * kStepK;
#pragma unroll
    for (int p = 0; p < kPairs; ++p) {
      const bool in = kb + 32 * p < K;
      const int wi = (kb + 32 * p) / 32 * BITS + wofs;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        l[p][h] = (in && wok[h]) ? __ldcs(qr[h] + wi) : 0u;
        u[p][h] = (in && wok[h] && two) ? __ldcs(qr[h] + wi + 1) : 0u;
      }
    }
#pragma unroll
    for (int j = 0; j < kSB; ++j) {
      const int gi = t + 4 * j, k0 = kb + gi * GROUP;
      const bool in = gi < kGroupsStep && k0 < K;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int gr = k0 / GROUP;
        v[j][h] = (in && wok[h]) ? uint32_t(__ldg(sr[h] + (F == Fault::first_scale ? 0 : gr))) |
                                       uint32_t(__ldg(br[h] + gr)) << 16
                                 : 0u;
      }
    }
  };
  if (warp < steps) load_step(warp, lo, hi, sb);
  for (int r = warp; r < steps; r += kSlices) {
    const int kb = r * kStepK;
    uint32_t lo2[kPairs][2] = {}, hi2[kPairs][2] = {}, sb2[kSB][2] = {};
    if (r + kSlices < steps) load_step(r + kSlices, lo2, hi2, sb2);
#pragma unroll
    for (int gi = 0; gi < kGroupsStep; ++gi) {
      const int k0 = kb + gi * GROUP;
      if (k0 >= K) continue;  // groups are whole: K is a multiple of GROUP
      float cq[MT][4], cx[MT][4];
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int c = 0; c < 4; ++c) cq[i][c] = 0.f, cx[i][c] = 0.f;
#pragma unroll
      for (int pp = 0; pp < kPairsGroup; ++pp) {
        const int p = gi * kPairsGroup + pp;
        const int kc0 = kb + 32 * p + 8 * t;
        uint4 xv[MT];
#pragma unroll
        for (int i = 0; i < MT; ++i)
          xv[i] = xok[i] ? __ldg(reinterpret_cast<const uint4*>(xr[i] + kc0)) : make_uint4(0, 0, 0, 0);
        uint32_t cw[2][4];  // rows g, g + 8: the lane's 8 codes as 4 bf16 pairs
        if constexpr (kSpread) {
          // 2 and 4 bits: code e and code e + 4 sit 16 bits apart (4 bits: in the word; 2 bits: once
          // the 8 codes' second byte moves up 16), so one mask lifts a pair (e, e + 4); x is paired the
          // same way below.
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            uint32_t v = lo[p][h] >> o;
            if (BITS == 2) v = (v & 0xffu) | ((v & 0xff00u) << 8);
#pragma unroll
            for (int e = 0; e < 4; ++e) cw[h][e] = codes_bf16x2<BITS>((v >> (BITS * e)) & (kMask | kMask << 16));
          }
#pragma unroll
          for (int i = 0; i < MT; ++i) {  // x as (0,4), (1,5), (2,6), (3,7)
            const uint4 u = xv[i];
            xv[i] = make_uint4((u.x & 0xffffu) | (u.z << 16), (u.x >> 16) | (u.z & 0xffff0000u),
                               (u.y & 0xffffu) | (u.w << 16), (u.y >> 16) | (u.w & 0xffff0000u));
          }
        } else {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const uint64_t v = ((uint64_t(hi[p][h]) << 32) | lo[p][h]) >> o;
            uint32_t c8[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) c8[e] = uint32_t(v >> (e * BITS)) & kMask;
            if (F == Fault::reversed_code)
#pragma unroll
              for (int e = 0; e < 4; ++e) {
                const uint32_t tmp = c8[e];
                c8[e] = c8[7 - e], c8[7 - e] = tmp;
              }
#pragma unroll
            for (int e = 0; e < 4; ++e) cw[h][e] = codes_bf16x2<BITS>(c8[2 * e] | c8[2 * e + 1] << 16);
          }
        }
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const uint32_t af[4] = {cw[0][2 * j], cw[1][2 * j], cw[0][2 * j + 1], cw[1][2 * j + 1]};
#pragma unroll
          for (int i = 0; i < MT; ++i) {
            const uint32_t xw[4] = {xv[i].x, xv[i].y, xv[i].z, xv[i].w};
            kc_mma_m16n8k16_bf16(cq[i], af, xw[2 * j], xw[2 * j + 1]);
            kc_mma_m16n8k16_bf16(cx[i], ones, xw[2 * j], xw[2 * j + 1]);
          }
        }
      }
      float sv[2], bv[2];
#pragma unroll
      for (int h = 0; h < 2; ++h) {  // this group's scale and bias from lane 4g + gi % 4
        const uint32_t w = __float_as_uint(__shfl_sync(0xffffffffu, __uint_as_float(sb[gi / 4][h]), 4 * g + gi % 4));
        sv[h] = bf(uint16_t(w & 0xffffu));
        bv[h] = bf(uint16_t(w >> 16));
      }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const float ss = sv[c >> 1], bb = bv[c >> 1], xs = cx[i][c & 1];  // rows g, g + 8 of ones agree
          float term;
          if (F == Fault::fold_scale)
            term = ss * (cq[i][c] + __bfloat162float(__float2bfloat16_rn(bb / ss)) * xs);
          else
            term = fmaf(ss, cq[i][c], bb * xs);
          acc[i][c] += term;
        }
    }
#pragma unroll
    for (int p = 0; p < kPairs; ++p)
#pragma unroll
      for (int h = 0; h < 2; ++h) lo[p][h] = lo2[p][h], hi[p][h] = hi2[p][h];
#pragma unroll
    for (int j = 0; j < kSB; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) sb[j][h] = sb2[j][h];
  }
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int c = 0; c < 4; ++c) red[warp][i * 4 + c][lane] = acc[i][c];
  __syncthreads();
  for (int e = threadIdx.x; e < MT * 4 * 32; e += 256) {
    const int qd = e / 32, ln = e % 32, i = qd / 4, c = qd % 4;
    const int n = n0 + (ln >> 2) + 8 * (c >> 1), m = m0 + i * kRowsX + 2 * (ln & 3) + (c & 1);
    if (n < N && m < M) {
      float v = red[0][qd][ln];
#pragma unroll
      for (int k = 1; k < kSlices; ++k) v += red[k][qd][ln];
      kc_store<Out>(y, size_t(m) * N + n, v);
    }
  }
}

namespace kc::affine_cu {

// x tiles (of 8 rows) a block takes: every row a launch serves (up to 32) in one block.
inline int qmv_tiles(int M) { return M <= 8 ? 1 : M <= 16 ? 2 : 4; }

// Longest chain of roundings for an output: a group's sum x q (and sum x) over its group / 16 mma
// steps, each k counted as three fp32 roundings (an mma's internal alignment may truncate rather than
// round: NVIDIA does not document it; the count dense/gemm uses); the group's b * sum x and fma;
// the slice's chain over its groups (at most ceil(ceil(k / 256) / 8) steps of 256 / group groups,
// and never more than k / group); the 7 slice adds.
inline double qmv_depth(long K, long group) {
  const long steps = (K + kStepK - 1) / kStepK;
  long groups = (steps + kSlices - 1) / kSlices * (kStepK / group);
  if (groups > K / group) groups = K / group;
  return 3.0 * double(group) + 2 + double(groups) + double(kSlices - 1);
}

template <int BITS, int GROUP, class Out, Fault F = Fault::none>
inline void launch_qmv(const void* x, const void* q, const void* s, const void* b, Out* y, int M, int N, int K,
                       cudaStream_t st) {
  const int mt = qmv_tiles(M);
  const dim3 grid((N + kRowsW - 1) / kRowsW, (M + kRowsX * mt - 1) / (kRowsX * mt));
  auto xx = static_cast<const uint16_t*>(x);
  auto qq = static_cast<const uint32_t*>(q);
  auto ss = static_cast<const uint16_t*>(s);
  auto bb = static_cast<const uint16_t*>(b);
  if (mt == 1) kc_affine_qmv<BITS, GROUP, 1, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
  else if (mt == 2) kc_affine_qmv<BITS, GROUP, 2, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
  else kc_affine_qmv<BITS, GROUP, 4, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
}

}  // namespace kc::affine_cu
