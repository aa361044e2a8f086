// MLX affine-quantized prompt projection on tensor cores: bits 2..8, groups 32/64/128, bf16 x,
// fp32 sums, bf16 or fp32 out. A pre-pass sums x over every 32 columns (sum x, MLX's formula's
// second sum, per 32 of a group); the tile then takes K in 32-column steps: codes are unpacked to
// bf16 (small integers, exact) in shared memory, mma.sync m16n8k16 sums x q for the step in a
// fresh fp32 accumulator t, and the step adds s * t + b * (sum x) to y, as the decode kernel adds
// a pack. A block of 8 warps computes 128 x 64 of y (each warp 32 x 32); x tiles come by cp.async,
// codes through registers, both double-buffered. Ragged M and N edges are zero-filled.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../dense/gemm/gemm.cuh"
#include "../qmv/qmv.cuh"

namespace kc::qmm_cu {
constexpr int kBM = 128, kBN = 64, kBK = 32, kThreads = 256;

// Which wgmma tiles a width and group take (qmm_ws_sm90a.cuh, qmm_sm90a.cuh).
template <int BITS, int GROUP> constexpr bool kWarpSpecialized = BITS <= 6 && GROUP <= 64;

// What qmm's device units (qmm_b*.cu: a few bit widths each, so that they build side by side; the body
// is qmm_unit.cuh) export to its registration (cuda.cpp) for a width and group: the answers and
// launchers of the unit's own kernels (a __global__ template's launch stub, and so its opt-in, is each
// unit's own). x bf16 [M x K]; q, s, b: W [N x K]'s codes, scales and biases; xs: M * K / 32 floats of
// workspace; y bf16 [M x N]; on the harness's stream.
template <int BITS, int GROUP> struct QmmUnit {
  static bool wgmma();  // runs the wgmma tiles (an sm_90 device, its sm_90a image loaded), decided once
  static cudaError_t prepare_wgmma();  // opts in the wgmma tiles' dynamic shared memory
  // The mma.sync tiles (launch_qmm, the pre-pass first), or the pre-pass and the wgmma tiles.
  static void launch(const void* x, const void* q, const void* s, const void* b, float* xs, void* y, int M, int N,
                     int K, void* stream);
  static void launch_wgmma(const void* x, const void* q, const void* s, const void* b, float* xs, void* y, int M,
                           int N, int K, void* stream);
};

}  // namespace kc::qmm_cu

#if defined(__CUDACC__)
// XS[m][j] = sum of x[m][32 j .. 32 j + 31], a chain in fp32. grid ceil(M * K / 32 / 256), 256 threads.
// One kernel for every width and group, defined once in a program: the contract's device units but
// the one holding it (qmm_b2_b3.cu) see its declaration alone (KC_QMM_XSUM_DECLARED), and their
// launches and launch records name that one kernel.
__global__ void __launch_bounds__(256)
kc_affine_xsum(const uint16_t* __restrict__ x, float* __restrict__ xs, int M, int K)
#if defined(KC_QMM_XSUM_DECLARED)
    ;
#else
{
  const long chunks = long(K) / 32, i = long(blockIdx.x) * 256 + threadIdx.x;
  if (i >= long(M) * chunks) return;
  const uint4* p = reinterpret_cast<const uint4*>(x + i * 32);
  float s = 0.f;
#pragma unroll
  for (int v = 0; v < 4; ++v) {
    const uint4 w = __ldg(p + v);
    const uint32_t u[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      s += __uint_as_float(u[j] << 16);
      s += __uint_as_float(u[j] & 0xffff0000u);
    }
  }
  xs[i] = s;
}
#endif

// grid (ceil(N / 64), ceil(M / 128)), 256 threads.
template <int BITS, int GROUP, class Out>
__global__ void __launch_bounds__(256)
kc_affine_qmm(const __nv_bfloat16* __restrict__ X, const uint32_t* __restrict__ Q, const uint16_t* __restrict__ S,
              const uint16_t* __restrict__ Bi, const float* __restrict__ XS, Out* __restrict__ Y, int M, int N, int K) {
  using namespace kc::qmm_cu;
  using kc::gemm_cu::cp_async16;
  using kc::gemm_cu::swz;
  __shared__ __align__(128) unsigned char sA[2][kBM * kBK * 2];
  __shared__ __align__(128) unsigned char sB[2][kBN * kBK * 2];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int wm = warp / 2, wn = warp % 2;  // warp tile: rows wm*32, cols wn*32
  const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
  const int ktiles = K / kBK, G = K / GROUP;
  const uint32_t a0 = uint32_t(__cvta_generic_to_shared(sA[0])), a1 = uint32_t(__cvta_generic_to_shared(sA[1]));
  const uint32_t b0 = uint32_t(__cvta_generic_to_shared(sB[0])), b1 = uint32_t(__cvta_generic_to_shared(sB[1]));
  // This thread's share of a code tile: row br, codes 8 * bq .. 8 * bq + 7 of the row's 32.
  const int br = tid / 4, bq = tid % 4, gn = bn + br;

  auto load_a = [&](uint32_t sa, int kt) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int idx = tid + i * kThreads, r = idx / 4, c = idx % 4, gm = bm + r, gk = kt * kBK + c * 8;
      const bool v = gm < M;
      cp_async16(sa + swz(r, c), v ? X + size_t(gm) * K + gk : X, v);
    }
  };
  // A thread's 8 codes (8 * BITS bits at bit 8 * BITS * bq of the row's pack) lie in one 64-bit
  // window of two consecutive words, so no code index depends on bq at run time.
  constexpr int kBitsPerThread = 8 * BITS;
  const int wbit = bq * kBitsPerThread, w0 = wbit / 32, sh = wbit % 32;
  auto load_q = [&](int kt, uint2& u) {
    u = make_uint2(0, 0);
    if (gn < N) {
      const uint32_t* p = Q + (size_t(gn) * ktiles + kt) * BITS;
      u.x = __ldg(p + w0);
      if (w0 + 1 < BITS) u.y = __ldg(p + w0 + 1);
    }
  };
  auto store_b = [&](unsigned char* sb, const uint2& u) {
    const unsigned long long v = ((unsigned long long)u.y << 32 | u.x) >> sh;
    uint32_t h[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float lo = float(uint32_t(v >> (2 * j * BITS)) & ((1u << BITS) - 1));
      const float hi = float(uint32_t(v >> ((2 * j + 1) * BITS)) & ((1u << BITS) - 1));
      h[j] = uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(lo))) |
             (uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(hi))) << 16);
    }
    *reinterpret_cast<uint4*>(sb + swz(br, bq)) = make_uint4(h[0], h[1], h[2], h[3]);
  };

  float y[2][4][4];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) y[i][j][e] = 0.f;

  uint2 u;
  load_a(a0, 0);
  kc::gemm_cu::cp_commit();
  load_q(0, u);
  store_b(sB[0], u);
  kc::gemm_cu::cp_wait<0>();
  __syncthreads();

  for (int kt = 0; kt < ktiles; ++kt) {
    const int cur = kt & 1;
    const bool more = kt + 1 < ktiles;
    if (more) {
      load_a(cur ? a0 : a1, kt + 1);
      kc::gemm_cu::cp_commit();
      load_q(kt + 1, u);
    }
    // t = x q over this step's 32 columns.
    float t[2][4][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) t[i][j][e] = 0.f;
    const uint32_t sa = cur ? a1 : a0, sb = cur ? b1 : b0;
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      uint32_t a[2][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
        const int r = wm * 32 + mi * 16 + (lane & 15), c = kk * 2 + (lane >> 4);
        kc::gemm_cu::ldsm_x4(sa + swz(r, c), a[mi][0], a[mi][1], a[mi][2], a[mi][3]);
      }
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) {
        const int r = wn * 32 + nj * 16 + (lane & 7) + ((lane >> 4) << 3), c = kk * 2 + ((lane >> 3) & 1);
        kc::gemm_cu::ldsm_x4(sb + swz(r, c), b[2 * nj][0], b[2 * nj][1], b[2 * nj + 1][0], b[2 * nj + 1][1]);
      }
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) kc_mma_m16n8k16_bf16(t[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
    // y += s * t + b * (sum x), per column's scale and bias and per row's sum of x.
    const int g = kt * kBK / GROUP;
    float xs[2][2];
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = bm + wm * 32 + mi * 16 + lane / 4 + h * 8;
        xs[mi][h] = r < M ? __ldg(XS + size_t(r) * ktiles + kt) : 0.f;
      }
#pragma unroll
    for (int ni = 0; ni < 4; ++ni)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = bn + wn * 32 + ni * 8 + (lane % 4) * 2 + e;
        const float sv = c < N ? kc::affine_cu::bf(__ldg(S + size_t(c) * G + g)) : 0.f;
        const float bv = c < N ? kc::affine_cu::bf(__ldg(Bi + size_t(c) * G + g)) : 0.f;
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) y[mi][ni][2 * h + e] += fmaf(sv, t[mi][ni][2 * h + e], bv * xs[mi][h]);
      }
    if (more) {
      store_b(sB[cur ^ 1], u);
      kc::gemm_cu::cp_wait<0>();
    }
    __syncthreads();
  }

#pragma unroll
  for (int mi = 0; mi < 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const int r = bm + wm * 32 + mi * 16 + lane / 4, c = bn + wn * 32 + ni * 8 + (lane % 4) * 2;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int rr = r + h * 8;
        if (rr >= M) continue;
        if (c < N) kc_store<Out>(Y, size_t(rr) * N + c, y[mi][ni][2 * h]);
        if (c + 1 < N) kc_store<Out>(Y, size_t(rr) * N + c + 1, y[mi][ni][2 * h + 1]);
      }
    }
}

namespace kc::qmm_cu {

// The pre-pass: xs (M * K / 32 floats of workspace) = sums of x over every 32 columns.
inline void launch_xsum(const void* x, float* xs, int M, int K, cudaStream_t st) {
  const long chunks = long(M) * (K / 32);
  kc_affine_xsum<<<unsigned((chunks + 255) / 256), 256, 0, st>>>(static_cast<const uint16_t*>(x), xs, M, K);
}

template <int BITS, int GROUP, class Out>
inline void launch_qmm(const void* x, const void* q, const void* s, const void* b, float* xs, Out* y, int M, int N,
                       int K, cudaStream_t st) {
  launch_xsum(x, xs, M, K, st);
  const dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  kc_affine_qmm<BITS, GROUP, Out><<<grid, kThreads, 0, st>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const uint32_t*>(q), static_cast<const uint16_t*>(s),
      static_cast<const uint16_t*>(b), xs, y, M, N, K);
}

}  // namespace kc::qmm_cu
#endif
