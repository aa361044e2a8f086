// MLX affine-quantized prompt projection on Hopper's warpgroup tensor cores, warp-specialized
// (sm_90a only): the formula, tiles and layouts of qmm_sm90a.cuh (128 x 128 of y a block, K in
// 64-column steps, codes unpacked to bf16 in wgmma's 128-byte swizzle, a group's x . q in one fp32
// accumulator folded as y = s t + (b (sum x) + y)), but three warpgroups: one producer copies x and
// codes by cp.async two steps ahead, unpacks each step's codes into that step's W tile and stores
// its s and b; two consumers (64 rows each) only multiply and fold. Four stages, each an x tile, a
// W tile, the codes and s, b, handed over by named barriers (full: the producer arrives, the
// consumers wait; empty: the reverse). A consumer takes a unit (32 columns for groups of 32, else a
// step of 64) into its accumulator, waits, and folds at a group's end; the two consumers are bound
// only through the stages, so one's fold runs beside the other's wgmma.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "qmm_sm90a.cuh"

namespace kc::qmmws {

constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 4, kAhead = 2, kThreads = 384;
constexpr int kXBytes = kBM * kBK * 2, kWBytes = kBN * kBK * 2;  // 16 KiB each
// x ring, W ring, code ring (BITS KiB a stage), s and b of up to two groups a stage (float2 a
// column), + 1 KiB to align to 1 KiB.
template <int BITS> constexpr int smem_bytes() {
  return kStages * (kXBytes + kWBytes + kBN * 2 * BITS * 4 + 2 * kBN * 8) + 1024;
}

}  // namespace kc::qmmws

#if defined(__CUDACC__)
namespace kc::qmmws {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void bar_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id, int n) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}
// Named barriers: 1..4 full (stage s), 5..8 empty, 9 the producer's own.
constexpr int kFull = 1, kEmpty = 5, kProd = 9;
#endif

}  // namespace kc::qmmws

// 1-D grid of ceil(M / 128) * ceil(N / 128) blocks, 384 threads, smem_bytes<BITS>() dynamic shared.
// XS: M x K / 32 sums of x (kc_affine_xsum).
template <int BITS, int GROUP, class Out>
__global__ void __launch_bounds__(384, 1)
kc_affine_qmm_ws(const __nv_bfloat16* __restrict__ X, const uint32_t* __restrict__ Q, const uint16_t* __restrict__ S,
                 const uint16_t* __restrict__ Bi, const float* __restrict__ XS, Out* __restrict__ Y, int M, int N,
                 int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace kc::qmmws;
  using kc::gemm90::desc128;
  constexpr int GPS = GROUP == 32 ? 2 : 1;  // groups ending in a step (at most)
  constexpr int WPR = 2 * BITS;             // code words of a row a step
  constexpr int kCodeBytes = kBN * WPR * 4;
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sraw = uint32_t(__cvta_generic_to_shared(smem));
  const uint32_t sbase = (sraw + 1023) & ~1023u;
  unsigned char* gbase = smem + (sbase - sraw);
  const uint32_t sx = sbase, sw = sx + kStages * kXBytes, sq = sw + kStages * kWBytes, ssb = sq + kStages * kCodeBytes;
  float2* gsb = reinterpret_cast<float2*>(gbase + (ssb - sbase));  // [stage][GPS][128] (s, b)

  const int tid = threadIdx.x, wg = tid / 128;
  int tm, tn;
  kc::gemm_cu::raster(blockIdx.x, (M + kBM - 1) / kBM, (N + kBN - 1) / kBN, tm, tn);
  const int bm = tm * kBM, bn = tn * kBN;
  const int ktiles = (K + kBK - 1) / kBK, G = K / GROUP;

  if (wg == 0) {
    // ---- producer ----
    const int pt = tid;  // 0..127: W row pt of every step, column pt of s and b
    const long row_words = long(K) * BITS / 32;
    auto load = [&](int kt) {
      const int st = kt % kStages;
      const uint32_t a = sx + st * kXBytes;
#pragma unroll
      for (int i = 0; i < kBM * 8 / 128; ++i) {
        const int idx = pt + i * 128, r = idx / 8, c = idx % 8, gk = kt * kBK + c * 8, gm = bm + r;
        const bool v = gm < M && gk < K;
        kc::gemm_cu::cp_async16(a + r * 128 + ((c ^ (r & 7)) << 4), v ? X + size_t(gm) * K + gk : X, v);
      }
      const uint32_t q = sq + st * kCodeBytes;
#pragma unroll
      for (int i = 0; i < WPR; ++i) {
        const int idx = pt + i * 128, r = idx / WPR, w = idx % WPR, gn = bn + r;
        const long gwd = long(kt) * WPR + w;
        const bool v = gn < N && gwd < row_words;
        kc::qmm90::cp_async4(q + idx * 4, v ? Q + size_t(gn) * row_words + gwd : Q, v);
      }
    };
    // s and b of column pt for the groups ending in step kt.
    auto load_sb = [&](int kt, float2 (&v)[GPS]) {
#pragma unroll
      for (int gi = 0; gi < GPS; ++gi) {
        v[gi] = make_float2(0.f, 0.f);
        const int g = (min(kt * kBK + (gi + 1) * (kBK / GPS), K) - 1) / GROUP, gn = bn + pt;
        if (kt < ktiles && gn < N && g < G)
          v[gi] = make_float2(kc::qmm90::bf(__ldg(S + size_t(gn) * G + g)), kc::qmm90::bf(__ldg(Bi + size_t(gn) * G + g)));
      }
    };
#pragma unroll
    for (int j = 0; j < kAhead; ++j) {
      if (j < ktiles) load(j);
      kc::gemm_cu::cp_commit();
    }
    float2 sbv[GPS];
    load_sb(0, sbv);
    for (int kt = 0; kt < ktiles; ++kt) {
      const int st = kt % kStages, j = kt + kAhead;
      if (j < ktiles) {
        if (j >= kStages) bar_sync(kEmpty + j % kStages, 384);  // the consumers are done with step j - 4
        load(j);
      }
      kc::gemm_cu::cp_commit();
      kc::gemm_cu::cp_wait<kAhead>();  // this thread's copies of step kt have landed
      bar_sync(kProd, 128);            // ... and every producer thread's
      // Unpack row pt's 64 codes of step kt, half a row (BITS words) at a time.
      const uint32_t* src = reinterpret_cast<const uint32_t*>(gbase + (sq - sbase) + st * kCodeBytes) + pt * WPR;
      unsigned char* dst = gbase + (sw - sbase) + st * kWBytes + pt * 128;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint32_t u[BITS];
#pragma unroll
        for (int i = 0; i < BITS; ++i) u[i] = src[h * BITS + i];
        kc::qmm90::unpack32<BITS>(u, dst, pt, h);
      }
#pragma unroll
      for (int gi = 0; gi < GPS; ++gi) gsb[(st * GPS + gi) * kBN + pt] = sbv[gi];
      load_sb(kt + 1, sbv);
      kc::gemm90::fence_async_shared();  // the W tile and the copied x tile, to wgmma's reads
      bar_arrive(kFull + st, 384);
    }
    kc::gemm_cu::cp_wait<0>();
  } else {
    // ---- consumers ----
    const int ct = tid - 128, cw = ct / 128, lane = ct % 32, warp = ct / 32;  // cw: rows cw * 64
    const int r0 = bm + cw * 64 + (warp % 4) * 16 + lane / 4;                 // this thread's rows r0, r0 + 8
    constexpr int UW = GROUP < kBK ? GROUP : kBK;                             // columns a unit
    constexpr int XC = GROUP / 32;
    const int units = (K + UW - 1) / UW, xch = K / 32;
    float y[64], t[64], xr[2][XC];
#pragma unroll
    for (int i = 0; i < 64; ++i) y[i] = 0.f, t[i] = 0.f;
    auto load_xs = [&](int kend) {  // sums of x of rows r0, r0 + 8 over the group ending at kend
      const int g = (kend - 1) / GROUP;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < XC; ++i)
          xr[h][i] = r0 + 8 * h < M ? __ldg(XS + size_t(r0 + 8 * h) * xch + g * XC + i) : 0.f;
    };
    auto fold = [&](const float (&tt)[64], const float2* sb) {
      const int lc = (lane % 4) * 2;
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
          const float2 v = sb[j * 8 + lc + e];
#pragma unroll
          for (int h = 0; h < 2; ++h)
            y[4 * j + 2 * h + e] = fmaf(v.x, tt[4 * j + 2 * h + e], fmaf(v.y, xs[h], y[4 * j + 2 * h + e]));
        }
    };
    // Unit u (its stage waited for at its step's first unit): wgmma into t, then the fold when it
    // ends a group, and the stage handed back after its last unit.
    for (int u = 0; u < units; ++u) {
      const int k0 = u * UW, kt = k0 / kBK, st = kt % kStages, kk0 = (k0 % kBK) / 16;
      const bool ends = (k0 + UW) % GROUP == 0;
      if (ends) load_xs(k0 + UW);
      if (k0 % kBK == 0) bar_sync(kFull + st, 384);
      const uint32_t xa = sx + st * kXBytes + cw * 64 * 128, wb = sw + st * kWBytes;
      kc::gemm90::wg_fence();
#pragma unroll
      for (int kk = 0; kk < UW / 16; ++kk)
        kc::gemm90::wgmma_m64n128k16(t, desc128(xa + (kk0 + kk) * 32), desc128(wb + (kk0 + kk) * 32),
                                    (kk > 0 || k0 % GROUP != 0) ? 1 : 0);
      kc::gemm90::wg_commit();
      kc::gemm90::wg_wait<0>(t);
      if (ends) fold(t, gsb + (st * GPS + (k0 % kBK) / UW * (GPS - 1)) * kBN);
      if (((k0 + UW) % kBK == 0 || k0 + UW >= K) && kt + kStages < ktiles) bar_arrive(kEmpty + st, 384);
    }
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const int c = bn + j * 8 + (lane % 4) * 2;
      kc::gemm_cu::put2<Out>(Y, M, N, r0, c, y[4 * j], y[4 * j + 1]);
      kc::gemm_cu::put2<Out>(Y, M, N, r0 + 8, c, y[4 * j + 2], y[4 * j + 3]);
    }
  }
#else
  __trap();  // built for sm_90a only
#endif
}

namespace kc::qmmws {
// Host side with internal linkage: a __global__ template's launch stub is per unit (gemv.cuh: GemvUnit).
namespace {
template <int BITS, int GROUP, class Out> inline cudaError_t prepare() {
  return cudaFuncSetAttribute(kc_affine_qmm_ws<BITS, GROUP, Out>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              smem_bytes<BITS>());
}
template <int BITS, int GROUP, class Out>
inline void launch(const void* x, const void* q, const void* s, const void* b, const float* xs, Out* y, int M, int N,
                   int K, cudaStream_t st) {
  const unsigned blocks = unsigned((M + kBM - 1) / kBM) * unsigned((N + kBN - 1) / kBN);
  kc_affine_qmm_ws<BITS, GROUP, Out><<<blocks, kThreads, smem_bytes<BITS>(), st>>>(
      static_cast<const __nv_bfloat16*>(x), static_cast<const uint32_t*>(q), static_cast<const uint16_t*>(s),
      static_cast<const uint16_t*>(b), xs, y, M, N, K);
}
}  // namespace
}  // namespace kc::qmmws
#endif
