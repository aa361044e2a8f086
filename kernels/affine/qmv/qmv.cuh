// MLX affine-quantized decode projection, 1..32 rows: y[m,n] = sum_g s[n,g] sum x q + b[n,g] sum x,
// bits 2, 3, 4, 5, 6 or 8, groups of 32, 64 or 128, bf16 x, s and b, fp32 sums, bf16 or fp32 out.
// A warp owns one W row (8 a block); each lane takes packs of 32 codes (BITS words, contiguous
// across the warp, loaded 16, 8 or 4 bytes at a time as their alignment allows), pack p, p + 32 ...
// For a pack it sums x q (a bf16 times a code is exact in fp32) and x in four chains of 8 and a tree, then adds
// s * (sum x q) + b * (sum x) to its row sum; the warp's butterfly adds its lanes.
// Fault plants one fault for the controls (controls/cuda/affine_*).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kc::affine_cu {

constexpr int kRowsPerBlock = 8;   // W rows a block: one a warp
constexpr int kPackCodes = 32;     // codes a lane takes at a time
constexpr int kLaneStrideK = 32 * kPackCodes;  // 1,024: K a warp covers a step

enum class Fault : int { none, fold_scale, reversed_code, first_scale };

__device__ __forceinline__ float bf(uint16_t h) { return __uint_as_float(uint32_t(h) << 16); }

// BITS words of one pack, with the widest loads its alignment allows (a pack starts at a multiple
// of 4 * BITS bytes).
template <int BITS> __device__ __forceinline__ void load_pack(const uint32_t* __restrict__ p, uint32_t (&u)[BITS]) {
  if constexpr (BITS % 4 == 0) {
#pragma unroll
    for (int i = 0; i < BITS / 4; ++i) {
      uint4 v = __ldcs(reinterpret_cast<const uint4*>(p) + i);
      u[4 * i] = v.x, u[4 * i + 1] = v.y, u[4 * i + 2] = v.z, u[4 * i + 3] = v.w;
    }
  } else if constexpr (BITS % 2 == 0) {
#pragma unroll
    for (int i = 0; i < BITS / 2; ++i) {
      uint2 v = __ldcs(reinterpret_cast<const uint2*>(p) + i);
      u[2 * i] = v.x, u[2 * i + 1] = v.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < BITS; ++i) u[i] = __ldcs(p + i);
  }
}

// Code e of a pack (MLX's bit stream: code e in bits [e * BITS, (e + 1) * BITS)).
template <int BITS> __device__ __forceinline__ float code(const uint32_t (&u)[BITS], int e) {
  const int bit = e * BITS, w = bit / 32, sh = bit % 32;
  uint32_t v = u[w] >> sh;
  if (sh + BITS > 32) v |= u[w + 1] << (32 - sh);
  return float(v & ((1u << BITS) - 1));
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <class Out> __device__ __forceinline__ void store_out(Out* y, size_t i, float v);
template <> __device__ __forceinline__ void store_out<float>(float* y, size_t i, float v) { y[i] = v; }
template <> __device__ __forceinline__ void store_out<__nv_bfloat16>(__nv_bfloat16* y, size_t i, float v) {
  y[i] = __float2bfloat16_rn(v);
}

}  // namespace kc::affine_cu

// grid (ceil(N / 8), ceil(M / MB)), 256 threads.
template <int BITS, int GROUP, int MB, class Out, kc::affine_cu::Fault F = kc::affine_cu::Fault::none>
// __maxnreg__(128) (launched at 256 threads): ptxas would otherwise hold some forms to 80 registers
// and spill a few bytes.
__global__ void __maxnreg__(128)
kc_affine_qmv(const uint16_t* __restrict__ x, const uint32_t* __restrict__ q, const uint16_t* __restrict__ s,
              const uint16_t* __restrict__ b, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::affine_cu;
  const int lane = threadIdx.x % 32;
  const int n = blockIdx.x * kRowsPerBlock + threadIdx.x / 32;
  const int m0 = blockIdx.y * MB;
  if (n >= N) return;  // a whole warp leaves together
  const int packs = K / kPackCodes, G = K / GROUP;
  const uint32_t* qr = q + size_t(n) * packs * BITS;
  float acc[MB];
#pragma unroll
  for (int i = 0; i < MB; ++i) acc[i] = 0.f;
  // The next pack's words, scale and bias are loaded before this pack's sums, so a lane always has
  // its next loads from memory in flight while it computes.
  const uint16_t* sr = s + size_t(n) * G;
  const uint16_t* br = b + size_t(n) * G;
  auto group_of = [&](int p) { return p * kPackCodes / GROUP; };
  uint32_t u[BITS];
  uint16_t scur = 0, bcur = 0;
  if (lane < packs) {
    load_pack<BITS>(qr + size_t(lane) * BITS, u);
    scur = __ldg(sr + (F == Fault::first_scale ? 0 : group_of(lane)));
    bcur = __ldg(br + group_of(lane));
  }
  for (int p = lane; p < packs; p += 32) {
    uint32_t un[BITS];
    uint16_t snext = 0, bnext = 0;
    if (p + 32 < packs) {
      load_pack<BITS>(qr + size_t(p + 32) * BITS, un);
      snext = __ldg(sr + (F == Fault::first_scale ? 0 : group_of(p + 32)));
      bnext = __ldg(br + group_of(p + 32));
    }
    const float sv = bf(scur);
    const float bv = bf(bcur);
    float qf[kPackCodes];
#pragma unroll
    for (int e = 0; e < kPackCodes; ++e) {
      int at = e;
      if (F == Fault::reversed_code) at = (e / (32 / BITS)) * (32 / BITS) + (32 / BITS - 1 - e % (32 / BITS));
      qf[e] = code<BITS>(u, at);
    }
#pragma unroll
    for (int i = 0; i < MB; ++i) {
      if (m0 + i < M) {
      const uint4* xv = reinterpret_cast<const uint4*>(x + size_t(m0 + i) * K + size_t(p) * kPackCodes);
      // Four chains of 8 (one a 16-byte x vector) for the pack's sum x q and sum x, then a tree:
      // independent chains keep the lane's fmas from waiting on each other.
      float av[4], sv4[4];
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const uint4 w4 = __ldg(xv + v);
        const uint32_t ww[4] = {w4.x, w4.y, w4.z, w4.w};
        av[v] = 0.f, sv4[v] = 0.f;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float x0 = __uint_as_float(ww[j] << 16), x1 = __uint_as_float(ww[j] & 0xffff0000u);
          av[v] = fmaf(x0, qf[v * 8 + 2 * j], av[v]);
          sv4[v] += x0;
          av[v] = fmaf(x1, qf[v * 8 + 2 * j + 1], av[v]);
          sv4[v] += x1;
        }
      }
      const float a = (av[0] + av[1]) + (av[2] + av[3]), xs = (sv4[0] + sv4[1]) + (sv4[2] + sv4[3]);
      float t;
      if (F == Fault::fold_scale)
        t = sv * (a + __bfloat162float(__float2bfloat16_rn(bv / sv)) * xs);
      else
        t = fmaf(sv, a, bv * xs);
      acc[i] += t;
      }
    }
#pragma unroll
    for (int j = 0; j < BITS; ++j) u[j] = un[j];
    scur = snext, bcur = bnext;
  }
#pragma unroll
  for (int i = 0; i < MB; ++i) {
    const float v = warp_sum(acc[i]);
    if (lane == 0 && m0 + i < M) store_out<Out>(y, size_t(m0 + i) * N + n, v);
  }
}

namespace kc::affine_cu {

inline int qmv_rows(int M) { return M <= 1 ? 1 : M <= 2 ? 2 : M <= 4 ? 4 : 8; }

// Longest chain: a pack's chain of 8 fmas and its 2-level tree, b * sum x and the fused
// s * sum x q, the lane's chain over its packs, the butterfly's 5 adds.
inline double qmv_depth(long K) { return double(8 + 2 + 2 + (K + kLaneStrideK - 1) / kLaneStrideK + 5); }

template <int BITS, int GROUP, class Out, Fault F = Fault::none>
inline void launch_qmv(const void* x, const void* q, const void* s, const void* b, Out* y, int M, int N, int K,
                       cudaStream_t st) {
  const int mb = qmv_rows(M);
  const dim3 grid((N + kRowsPerBlock - 1) / kRowsPerBlock, (M + mb - 1) / mb);
  auto xx = static_cast<const uint16_t*>(x);
  auto qq = static_cast<const uint32_t*>(q);
  auto ss = static_cast<const uint16_t*>(s);
  auto bb = static_cast<const uint16_t*>(b);
  if (mb == 1) kc_affine_qmv<BITS, GROUP, 1, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
  else if (mb == 2) kc_affine_qmv<BITS, GROUP, 2, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
  else if (mb == 4) kc_affine_qmv<BITS, GROUP, 4, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
  else kc_affine_qmv<BITS, GROUP, 8, Out, F><<<grid, 256, 0, st>>>(xx, qq, ss, bb, y, M, N, K);
}

}  // namespace kc::affine_cu
