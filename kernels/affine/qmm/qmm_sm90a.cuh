// MLX affine-quantized prompt projection on Hopper's warpgroup tensor cores (wgmma, sm_90a only):
// bits 2..8, groups 32/64/128, bf16 x, fp32 sums, bf16 or fp32 out. y = sum over groups g of
// s[n,g] * (x . q)_g + b[n,g] * (sum x)_g, as MLX's kernels evaluate it. A block of two warpgroups
// computes 128 x 128 of y (each warpgroup 64 x 128). K moves in 64-column steps through a 4-stage
// cp.async ring of x tiles (128-byte swizzled, as wgmma reads them) and packed code tiles; each step's
// codes are unpacked to bf16 (small integers, exact) into a double-buffered W tile in the same
// layout, while this step's wgmma runs. Per group a fresh fp32 accumulator t = x . q (wgmma with
// scale-d 0 at the group's first 16 columns); at the group's end the warpgroup waits for it and
// folds y = s t + (b (sum x) + y) (sum x from the pre-pass of qmm.cuh, per 32 columns, added up per
// group; s, b and the sums fetched a step ahead). A step of 64 holds two groups of 32 (folded one
// after the other), one of 64, or half of one of 128. Ragged M and N are zero-filled; K is a
// multiple of the group (a last half step of 32 is zero-filled).
// The body exists only in the sm_90a image; elsewhere the kernel traps and is never launched
// (gemm_sm90a.cuh's kc_gemm90_image says which image the driver loaded).
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "../../dense/gemm/gemm.cuh"
#include "../../dense/gemm/gemm_sm90a.cuh"

namespace kc::qmm90 {

constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 4, kThreads = 256;
constexpr int kXBytes = kBM * kBK * 2, kWBytes = kBN * kBK * 2;  // 16 KiB each
// Shared memory: x ring, two W tiles, the code ring (BITS KiB a stage), s and b of up to two groups
// a step for two steps (float2 a column), + 1 KiB to align to 1 KiB.
template <int BITS> constexpr int smem_bytes() {
  return kStages * kXBytes + 2 * kWBytes + kStages * kBN * 2 * BITS * 4 + 2 * 2 * kBN * 8 + 1024;
}

}  // namespace kc::qmm90

#if defined(__CUDACC__)
namespace kc::qmm90 {

__device__ __forceinline__ float bf(uint16_t h) { return __uint_as_float(uint32_t(h) << 16); }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void cp_async4(uint32_t dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0));
}
// 32 codes of BITS bits (u: BITS words, MLX's packing) as bf16 into half h of row r of a W tile in
// the 128-byte swizzled layout wgmma reads (`row` is the row's start; chunks 4h .. 4h + 3, each
// index XORed with r's low 3 bits). A code is exact in bf16 (2^23 + q in fp32, less 2^23).
template <int BITS> __device__ __forceinline__ void unpack32(const uint32_t (&u)[BITS], unsigned char* row, int r, int h) {
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float f[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        constexpr uint32_t mask = (1u << BITS) - 1;
        const int bit = (8 * c + 2 * i + e) * BITS, w = bit / 32, sh = bit % 32;
        uint32_t code = u[w] >> sh;
        if (sh + BITS > 32) code |= u[w + 1] << (32 - sh);
        f[e] = __uint_as_float(0x4B000000u | (code & mask)) - 8388608.f;  // exact: code < 2^23
      }
      const __nv_bfloat162 p = __floats2bfloat162_rn(f[0], f[1]);
      o[i] = *reinterpret_cast<const uint32_t*>(&p);
    }
    *reinterpret_cast<uint4*>(row + (((4 * h + c) ^ (r & 7)) << 4)) = make_uint4(o[0], o[1], o[2], o[3]);
  }
}
#endif

}  // namespace kc::qmm90

// 1-D grid of ceil(M / 128) * ceil(N / 128) blocks, 256 threads, smem_bytes<BITS>() dynamic shared.
// XS: M x K / 32 sums of x (kc_affine_xsum).
template <int BITS, int GROUP, class Out>
__global__ void __launch_bounds__(256, 1)
kc_affine_qmm_wgmma(const __nv_bfloat16* __restrict__ X, const uint32_t* __restrict__ Q,
                    const uint16_t* __restrict__ S, const uint16_t* __restrict__ Bi, const float* __restrict__ XS,
                    Out* __restrict__ Y, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::qmm90;
  using kc::gemm90::desc128;
  constexpr int GPS = GROUP == 32 ? 2 : 1;           // groups ending in a step (at most)
  constexpr int WPR = 2 * BITS;                      // code words of a row a step
  constexpr int kCodeBytes = kBN * WPR * 4;          // a stage of codes
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sraw = uint32_t(__cvta_generic_to_shared(smem));
  const uint32_t sbase = (sraw + 1023) & ~1023u;
  unsigned char* gbase = smem + (sbase - sraw);
  const uint32_t sx = sbase, sw = sx + kStages * kXBytes, sq = sw + 2 * kWBytes, ssb = sq + kStages * kCodeBytes;
  unsigned char* gw = gbase + (sw - sbase);
  const unsigned char* gq = gbase + (sq - sbase);
  float2* gsb = reinterpret_cast<float2*>(gbase + (ssb - sbase));  // [2 steps][GPS][128] (s, b)

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, wg = warp / 4;
  int tm, tn;
  kc::gemm_cu::raster(blockIdx.x, (M + kBM - 1) / kBM, (N + kBN - 1) / kBN, tm, tn);
  const int bm = tm * kBM, bn = tn * kBN;
  const int ktiles = (K + kBK - 1) / kBK, G = K / GROUP, xch = K / 32;
  const long row_words = long(K) * BITS / 32;

  auto load = [&](int stage, int kt) {
    const uint32_t a = sx + stage * kXBytes;
#pragma unroll
    for (int i = 0; i < kBM * 8 / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = kt * kBK + c * 8, gm = bm + r;
      const bool v = gm < M && gk < K;
      kc::gemm_cu::cp_async16(a + r * 128 + ((c ^ (r & 7)) << 4), v ? X + size_t(gm) * K + gk : X, v);
    }
    const uint32_t q = sq + stage * kCodeBytes;
#pragma unroll
    for (int i = 0; i < kBN * WPR / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / WPR, w = idx % WPR, gn = bn + r;
      const long gwd = long(kt) * WPR + w;
      const bool v = gn < N && gwd < row_words;
      cp_async4(q + idx * 4, v ? Q + size_t(gn) * row_words + gwd : Q, v);
    }
  };
  // s and b of the groups ending in step kt, one (column, group) a thread (tid < GPS * 128): loaded
  // a step ahead into registers, stored to gsb[kt & 1] by dequant.
  auto load_sb = [&](int kt) {
    float2 v = make_float2(0.f, 0.f);
    if (tid < GPS * kBN && kt < ktiles) {
      const int gi = tid / kBN, gn = bn + tid % kBN;
      const int g = (min(kt * kBK + (gi + 1) * (kBK / GPS), K) - 1) / GROUP;
      if (gn < N && g < G) v = make_float2(bf(__ldg(S + size_t(gn) * G + g)), bf(__ldg(Bi + size_t(gn) * G + g)));
    }
    return v;
  };
  // Codes of step kt (in stage `stage`) to bf16 in W tile `buf`: thread tid unpacks half a row (32
  // codes, BITS words); then the step's s and b (sbv) go to gsb[kt & 1].
  auto dequant = [&](int stage, int buf, int kt, float2 sbv) {
    const int r = tid / 2, h = tid % 2;
    const uint32_t* src = reinterpret_cast<const uint32_t*>(gq + stage * kCodeBytes) + r * WPR + h * BITS;
    uint32_t u[BITS];
#pragma unroll
    for (int i = 0; i < BITS; ++i) u[i] = src[i];
    unpack32<BITS>(u, gw + buf * kWBytes + r * 128, r, h);
    if (tid < GPS * kBN) gsb[(kt & 1) * GPS * kBN + tid] = sbv;
  };

  const int r0 = bm + wg * 64 + (warp % 4) * 16 + lane / 4;  // this thread's rows r0, r0 + 8
  // Sums of x of this thread's rows over the group ending at column kend, per 32 columns.
  constexpr int XC = GROUP / 32;
  auto load_xs = [&](float (&xs)[2][XC], int kend) {
    const int g = (kend - 1) / GROUP;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < XC; ++i)
        xs[h][i] = r0 + 8 * h < M ? __ldg(XS + size_t(r0 + 8 * h) * xch + g * XC + i) : 0.f;
  };
  float y[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) y[i] = 0.f;
  // y = s t + (b (sum x) + y): two fused steps a group along y's chain.
  auto fold = [&](const float (&tt)[64], const float2* sb, const float (&xr)[2][XC]) {
    float xs[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      xs[h] = xr[h][0];
#pragma unroll
      for (int i = 1; i < XC; ++i) xs[h] += xr[h][i];
    }
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float2 v = sb[j * 8 + (lane % 4) * 2 + e];
#pragma unroll
        for (int h = 0; h < 2; ++h) y[4 * j + 2 * h + e] = fmaf(v.x, tt[4 * j + 2 * h + e], fmaf(v.y, xs[h], y[4 * j + 2 * h + e]));
      }
  };
  // One step's wgmmas (16 columns each) into tt, from the step's x stage and W tile.
  auto mma = [&](float (&tt)[64], int kt, int kk0, int kk1, bool start) {
    const uint32_t xa = sx + (kt % kStages) * kXBytes + wg * 64 * 128, wb = sw + (kt & 1) * kWBytes;
#pragma unroll
    for (int kk = kk0; kk < kk1; ++kk)
      kc::gemm90::wgmma_m64n128k16(tt, desc128(xa + kk * 32), desc128(wb + kk * 32), (kk > kk0 || !start) ? 1 : 0);
  };
  // Refill the ring with step kt + 3, and make step kt + 1's W tile (its copies landed, everyone's).
  auto advance = [&](int kt, float2 sbv) {
    const int nk = kt + kStages - 1;
    if (nk < ktiles) load(nk % kStages, nk);
    kc::gemm_cu::cp_commit();
    if (kt + 1 < ktiles) {
      kc::gemm_cu::cp_wait<kStages - 2>();
      __syncthreads();
      dequant((kt + 1) % kStages, (kt + 1) & 1, kt + 1, sbv);
      kc::gemm90::fence_async_shared();
    }
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < ktiles) load(s, s);
    kc::gemm_cu::cp_commit();
  }
  kc::gemm_cu::cp_wait<kStages - 2>();
  __syncthreads();
  dequant(0, 0, 0, load_sb(0));
  kc::gemm90::fence_async_shared();
  __syncthreads();

  // One accumulator: a group's wgmmas run while the next step's codes are unpacked; the warpgroup
  // then waits and folds the group (its x sums and s, b were fetched a step or more earlier).
  float t[64];
  constexpr int SPG = GROUP >= kBK ? GROUP / kBK : 1;  // steps a group (groups of 32: two a step)
  for (int kt = 0; kt < ktiles; ++kt) {
    const int k0 = kt * kBK;
    const float2 sbv = load_sb(kt + 1);
    const float2* sb = gsb + (kt & 1) * GPS * kBN;
    if constexpr (GROUP == 32) {
      const bool half = k0 + 32 >= K;  // the step's last 32 columns lie past K
      float xa[2][XC], xb[2][XC];
      load_xs(xa, k0 + 32);
      load_xs(xb, half ? k0 + 32 : k0 + 64);
      kc::gemm90::wg_fence();
      mma(t, kt, 0, 2, true);
      kc::gemm90::wg_commit();
      advance(kt, sbv);
      kc::gemm90::wg_wait<0>(t);
      fold(t, sb, xa);
      if (!half) {
        kc::gemm90::wg_fence();
        mma(t, kt, 2, 4, true);
        kc::gemm90::wg_commit();
        kc::gemm90::wg_wait<0>(t);
        fold(t, sb + kBN, xb);
      }
    } else {
      const bool end = kt % SPG == SPG - 1;
      float xr[2][XC];
      if (end) load_xs(xr, k0 + kBK);
      kc::gemm90::wg_fence();
      mma(t, kt, 0, 4, kt % SPG == 0);
      kc::gemm90::wg_commit();
      advance(kt, sbv);
      kc::gemm90::wg_wait<0>(t);
      if (end) fold(t, sb, xr);
    }
    __syncthreads();  // W tile kt + 1 and its s, b complete; every wgmma of step kt finished
  }
  kc::gemm_cu::cp_wait<0>();

#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int c = bn + j * 8 + (lane % 4) * 2;
    kc::gemm_cu::put2<Out>(Y, M, N, r0, c, y[4 * j], y[4 * j + 1]);
    kc::gemm_cu::put2<Out>(Y, M, N, r0 + 8, c, y[4 * j + 2], y[4 * j + 3]);
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::qmm90 {
// Host side with internal linkage: a __global__ template's launch stub is per unit (gemv.cuh: GemvUnit).
namespace {
template <int BITS, int GROUP, class Out> inline cudaError_t prepare() {
  return cudaFuncSetAttribute(kc_affine_qmm_wgmma<BITS, GROUP, Out>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              smem_bytes<BITS>());
}
template <int BITS, int GROUP, class Out>
inline void launch(const void* x, const void* q, const void* s, const void* b, const float* xs, Out* y, int M, int N,
                   int K, cudaStream_t st) {
  const unsigned blocks = unsigned((M + kBM - 1) / kBM) * unsigned((N + kBN - 1) / kBN);
  kc_affine_qmm_wgmma<BITS, GROUP, Out><<<blocks, kThreads, smem_bytes<BITS>(), st>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const uint32_t*>(q), static_cast<const uint16_t*>(s),
      static_cast<const uint16_t*>(b), xs, y, M, N, K);
}
}  // namespace
}  // namespace kc::qmm90
#endif
