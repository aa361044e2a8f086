// TRIAL, not served (no contract entry, no launch rows): affine/qmv with its code words staged in
// shared memory by 16-byte cp.async, kept for the next step on the kernel. Measured on the H200
// against the served qmv.cuh in one run (bench/cuda/dense/h200_results.txt, "AFFINE decode trial"):
// faster at 2, 3 and 5 bits and at 1 and 8 rows of 4,096 x 4,096, slower at 4 and 8 bits on 14,336 x
// 4,096 (the loads alone reach 72-77% of copy there; the sums, not the loads, bound it), and green
// on gates 1-4 for all 18 (bits, group) forms when it stood in for qmv.cuh (its launches then took
// qmv_smem_bytes(bits) of dynamic shared memory, optin at 6 and 8 bits). Same summation order and
// depth as qmv.cuh. Bench it with
//   nvcc ... -DKC_QMV_TRIAL='"../../../kernels/affine/qmv/trial/qmv_staged.cuh"' bench_dense.cu
// MLX affine-quantized decode projection, 1..32 rows: y[m,n] = sum_g s[n,g] sum x q + b[n,g] sum x,
// bits 2, 3, 4, 5, 6 or 8, groups of 32, 64 or 128, bf16 x, s and b, fp32 sums, bf16 or fp32 out.
// On tensor cores (mma.sync m16n8k16, kc_gpu.h): a code q is exact in bf16, so sum x q is an mma
// of the codes against x, and sum x an mma of ones against the same x.
//
// A block of 8 warps owns 16 W rows and every x row it serves (8 * MT: up to 32 in one block), so
// each code word is loaded once and used for all rows. K is cut into 256-code steps, step r to warp
// slice r % 8. A warp copies a step's code bytes of its 16 W rows into its own shared-memory stage
// with 16-byte cp.async (coalesced: 4-byte copies where a row does not start on 16 bytes), two stages,
// so step r + 8's copies are in flight while step r is summed. In a step, lane 4g + t takes, for each of its 8 pairs p of mma steps, the 8 codes at
// k = 256 r + 32 p + 8 t of W rows g and g + 8 (the one or two words of the stage that hold them: a
// quad reads a pair's 4 * bits contiguous bytes) and the 16 bytes of x row g of each x tile at the same k (through
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

#include "../../../common/kc_gpu.h"

#if defined(__CUDACC__)
#include <cstdint>
#endif

namespace kc::affine_trial {

constexpr int kSlices = 8;                  // K slices: warps of a block
constexpr int kRowsW = 16;                  // W rows a block (an mma tile)
constexpr int kRowsPerBlock = kRowsW;       // (the name the controls' tiles use)
constexpr int kRowsX = 8;                   // x rows of an mma tile
constexpr int kStepK = 256;                 // codes a warp takes at a time: 8 pairs of 32
constexpr int kTileK = kSlices * kStepK;    // 2,048: K the slices cover before repeating
constexpr int kLaneStrideK = kTileK;        // (the name the controls' tiles use)
constexpr int kStages = 2;                  // code stages a warp: one summed, one in flight

// Words of a W row's step in a stage: its 8 * bits words and 4 more, so rows g start 4g banks apart.
__host__ __device__ constexpr int qmv_row_words(int bits) { return 8 * bits + 4; }
// Dynamic shared memory of a launch: every warp's stages (the slice sums reuse it at the end).
__host__ __device__ constexpr int qmv_smem_bytes(int bits) { return kSlices * kStages * kRowsW * qmv_row_words(bits) * 4; }

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

template <class Out> __device__ __forceinline__ void store_out(Out* y, size_t i, float v);
template <> __device__ __forceinline__ void store_out<float>(float* y, size_t i, float v) { y[i] = v; }
template <> __device__ __forceinline__ void store_out<__nv_bfloat16>(__nv_bfloat16* y, size_t i, float v) {
  y[i] = __float2bfloat16_rn(v);
}

}  // namespace kc::affine_trial

// grid (ceil(N / 16), ceil(M / 8 MT)), 256 threads (8 warps: the K slices), qmv_smem_bytes(BITS)
// of dynamic shared memory. Beyond 8 rows a lane holds 8 or 16 x vectors: one block an SM leaves them
// their registers unspilled.
template <int BITS, int GROUP, int MT, class Out, kc::affine_trial::Fault F = kc::affine_trial::Fault::none>
__global__ void __launch_bounds__(256, MT == 1 ? 2 : 1)
kc_affine_qmv_staged(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
              const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::affine_trial;
  static_assert(GROUP % 32 == 0 && kStepK % GROUP == 0, "a pair of mma steps lies in one group");
  constexpr int kPairsGroup = GROUP / 32, kGroupsStep = kStepK / GROUP;
  constexpr int kRW = qmv_row_words(BITS), kChunks = 2 * BITS;  // a row's step: 2 bits 16-byte chunks
  constexpr uint32_t kMask = (1u << BITS) - 1;
  // Pair codes e, e + 4 (and x alike) where the bits allow it cheaply; the reversed-code control
  // keeps the plain order, where its fault is written.
  constexpr bool kSpread = (BITS == 2 || BITS == 4) && F != kc::affine_trial::Fault::reversed_code;
  extern __shared__ __align__(16) uint32_t kc_qmv_staged_smem[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane >> 2, t = lane & 3;
  const int n0 = blockIdx.x * kRowsW, m0 = blockIdx.y * kRowsX * MT;
  const int wpr = K / 32 * BITS, G = K / GROUP;  // words and groups a row
  // 16-byte copies where every row starts on 16 bytes (the launch is uniform in this).
  const bool vec = wpr % 4 == 0 && (reinterpret_cast<size_t>(q) & 15) == 0;
  uint32_t* const stages = kc_qmv_staged_smem + warp * (kStages * kRowsW * kRW);
  const uint16_t *sr[2], *br[2];
  bool wok[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int n = n0 + g + 8 * h;
    wok[h] = n < N;
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

  // A step's code words of the block's 16 rows into a stage (row i at word i kRW), lane by lane in
  // 16-byte chunks; rows past N and words past K are left as they are (never summed into a kept y).
  auto load_codes = [&](int r, uint32_t* st) {
    const int kb = r * kStepK, nw = (K - kb < kStepK ? K - kb : kStepK) / 32 * BITS;
#pragma unroll
    for (int j = 0; j < kChunks / 2; ++j) {  // 16 rows x kChunks chunks over 32 lanes
      const int c = lane + 32 * j, row = c / kChunks, ch = c % kChunks, n = n0 + row;
      if (n >= N || 4 * ch >= nw) continue;
      uint32_t* dst = st + row * kRW + 4 * ch;
      const uint32_t* src = q + size_t(n) * wpr + kb / 32 * BITS + 4 * ch;
      if (vec && 4 * ch + 4 <= nw) {
        kc_cp_async16(dst, src);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (4 * ch + e < nw) kc_cp_async4(dst + e, src + e);
      }
    }
  };
  // A step's scales and biases, shared out over the quad (lane t holds groups t, t + 4 of the step;
  // a group's are fetched from their lane when summed), one step ahead in registers.
  constexpr int kSB = (kGroupsStep + 3) / 4;
  const int steps = (K + kStepK - 1) / kStepK;
  uint32_t sb[kSB][2];
  auto load_sb = [&](int r, uint32_t (&v)[kSB][2]) {
    const int kb = r * kStepK;
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
  if (warp < steps) load_codes(warp, stages), load_sb(warp, sb);
  kc_cp_async_commit();
  int slot = 0;
  for (int r = warp; r < steps; r += kSlices, slot ^= 1) {
    const int kb = r * kStepK;
    uint32_t sb2[kSB][2] = {};
    if (r + kSlices < steps) load_codes(r + kSlices, stages + (slot ^ 1) * (kRowsW * kRW)), load_sb(r + kSlices, sb2);
    kc_cp_async_commit();
    kc_cp_async_wait<1>();  // this step's copies (the next step's may still fly)
    __syncwarp();
    const uint32_t* cs = stages + slot * (kRowsW * kRW) + g * kRW + wofs;
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
        uint32_t lo[2], hi[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          lo[h] = cs[h * 8 * kRW + p * BITS];
          hi[h] = two ? cs[h * 8 * kRW + p * BITS + 1] : 0u;
        }
        uint32_t cw[2][4];  // rows g, g + 8: the lane's 8 codes as 4 bf16 pairs
        if constexpr (kSpread) {
          // 2 and 4 bits: code e and code e + 4 sit 16 bits apart (4 bits: in the word; 2 bits: once
          // the 8 codes' second byte moves up 16), so one mask lifts a pair (e, e + 4); x is paired the
          // same way below.
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            uint32_t v = lo[h] >> o;
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
            const uint64_t v = ((uint64_t(hi[h]) << 32) | lo[h]) >> o;
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
    __syncwarp();  // every lane has read this stage before it is refilled
#pragma unroll
    for (int j = 0; j < kSB; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) sb[j][h] = sb2[j][h];
  }
  // The slices meet in shared memory, over the stages (every warp past its last read of them).
  kc_cp_async_wait<0>();
  __syncthreads();
  float* red = reinterpret_cast<float*>(kc_qmv_staged_smem);  // [slice][MT * 4][32]
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int c = 0; c < 4; ++c) red[(warp * MT * 4 + i * 4 + c) * 32 + lane] = acc[i][c];
  __syncthreads();
  for (int e = threadIdx.x; e < MT * 4 * 32; e += 256) {
    const int qd = e / 32, ln = e % 32, i = qd / 4, c = qd % 4;
    const int n = n0 + (ln >> 2) + 8 * (c >> 1), m = m0 + i * kRowsX + 2 * (ln & 3) + (c & 1);
    if (n < N && m < M) {
      float v = red[qd * 32 + ln];
#pragma unroll
      for (int k = 1; k < kSlices; ++k) v += red[(k * MT * 4 + qd) * 32 + ln];
      store_out<Out>(y, size_t(m) * N + n, v);
    }
  }
}

namespace kc::affine_trial {

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

// Raises the launches' dynamic shared memory limit where they take more than 48 KiB (6 and 8 bits);
// the first call does it, later ones return its result.
template <int BITS, int GROUP, class Out, Fault F = Fault::none> inline cudaError_t prepare_qmv() {
#if defined(__CUDACC__)
  if constexpr (qmv_smem_bytes(BITS) > 48 * 1024) {
    static const cudaError_t e = [] {
      const int bytes = qmv_smem_bytes(BITS);
      cudaError_t r = cudaFuncSetAttribute(kc_affine_qmv_staged<BITS, GROUP, 1, Out, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      if (r == cudaSuccess)
        r = cudaFuncSetAttribute(kc_affine_qmv_staged<BITS, GROUP, 2, Out, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      if (r == cudaSuccess)
        r = cudaFuncSetAttribute(kc_affine_qmv_staged<BITS, GROUP, 4, Out, F>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      return r;
    }();
    return e;
  }
#endif
  return cudaError_t(0);
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
  constexpr int sm = qmv_smem_bytes(BITS);
  (void)prepare_qmv<BITS, GROUP, Out, F>();
  if (mt == 1) kc_affine_qmv_staged<BITS, GROUP, 1, Out, F><<<grid, 256, sm, st>>>(xx, qq, ss, bb, y, M, N, K);
  else if (mt == 2) kc_affine_qmv_staged<BITS, GROUP, 2, Out, F><<<grid, 256, sm, st>>>(xx, qq, ss, bb, y, M, N, K);
  else kc_affine_qmv_staged<BITS, GROUP, 4, Out, F><<<grid, 256, sm, st>>>(xx, qq, ss, bb, y, M, N, K);
}

}  // namespace kc::affine_trial
