// FP8 prompt projection on Hopper's e4m3 tensor cores (wgmma, sm_90a only): e4m3 activations xq
// [m x k] and weights q [n x k], both K-major as wgmma's FP8 forms require, bf16 out. A block of two
// warpgroups computes a 128 x 128 tile of y, each warpgroup 64 x 128 with four wgmma m64n128k32 a
// 128-column step of K. The tensor core's own accumulation keeps fewer bits than fp32 (a measured
// rule: records/cuda/tensor_cores.tsv), so each step's four wgmma start from zero into a partial
// sum, and the warpgroup promotes it to its fp32 accumulator with one fma an element, times the
// step's scales (the weights' 128 x 128 block times the row's activation group, or 1 where the
// scales are per tensor or channel, applied at the end). Two partials alternate: a step's wgmma run
// while the previous step's partial is promoted.
// K moves through a ring of 6 stages of 32 KiB filled by cp.async (every thread copies; zero-fill
// makes the ragged M, N and K edges; K a multiple of 16) in the 128-byte swizzled layout wgmma reads,
// the same rhythm as the dense GEMM (kernels/dense/gemm/gemm_sm90a.cuh, whose helpers it uses).
// The body exists only in the sm_90a image; elsewhere the kernel traps, and the launcher runs the
// portable kernel (fp8_gemm.cuh) there.
// The sizes and the exported launchers above the device guard are plain C++, for the registration.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "../bs_gemv.cuh"

namespace kc::fp8gemm {

constexpr int kBM = 128, kBN = 128, kBK = 128, kThreads = 256, kStages = 6;
constexpr int kTileBytes = 128 * 128;                        // one operand's 128 rows x 128 codes
constexpr int kStageBytes = 2 * kTileBytes;                  // 32 KiB
constexpr int kSmemBytes = kStages * kStageBytes + 1024;     // + 1 KiB to align
// A planted fault for the CUDA control (controls/cuda/blockscaled/bs_never_promotes.cuh): every
// step's wgmma accumulate into one tensor-core sum over the whole of K, never promoted.
enum : int { f_none = 0, f_never_promote = 1 };

// Exported by fp8_gemm.cu to the contract (cuda.cpp): whether that unit's loaded image holds the
// wgmma body (kc::gemm90::image_has_wgmma), the wgmma kernel's opt-in to its dynamic shared memory
// at scale form W, A, and its launch (bf16 y) on the harness's stream.
bool wgmma_here();
template <int W, int A> cudaError_t prepare_wgmma();
template <int W, int A>
void served_wgmma(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y, int M, int N, int K,
                  void* stream);

}  // namespace kc::fp8gemm

#if defined(__CUDACC__) || defined(__HIP__)
#include "../../dense/gemm/gemm_sm90a.cuh"

namespace kc::fp8gemm {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// One wgmma m64n128k32 (e4m3 in, fp32 accumulate) of a warpgroup: d = A B^T + (scale_d ? d : 0), A
// and B K-major from shared memory through descriptors. (Operand list written out: inline PTX has
// no loops.)
__device__ __forceinline__ void wgmma_e4m3_m64n128k32(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}

// Element i of a warpgroup's m64n128 accumulator lies in row lane / 4 (+ 8 where bit 1 of i is set)
// of the warp's 16 and column 8 (i / 4) + 2 (lane % 4) + i % 2.
__device__ __forceinline__ void promote(float (&acc)[64], const float (&part)[64], float c0, float c1) {
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = fmaf(part[i], (i & 2) ? c1 : c0, acc[i]);
}
#endif

}  // namespace kc::fp8gemm

// 1-D grid of ceil(M / 128) * ceil(N / 128) blocks, 256 threads, kSmemBytes dynamic shared.
// W, A: kc::bs_cu's forms (w_tensor, w_channel, w_block128; a_fp8_tensor, a_fp8_group).
template <int W, int A, class Out, int F = kc::fp8gemm::f_none>
__global__ void __launch_bounds__(256, 1)
kc_fp8_gemm_wgmma(const uint8_t* __restrict__ xq, const float* __restrict__ sx, const uint8_t* __restrict__ q,
                  const float* __restrict__ s, Out* __restrict__ y, int M, int N, int K) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using kc::gemm90::desc128, kc::gemm90::fence_async_shared, kc::gemm90::wg_commit, kc::gemm90::wg_fence, kc::gemm90::wg_wait;
  using namespace kc::fp8gemm;
  using kc::gemm_cu::cp_async16;
  constexpr bool blocked = W == kc::bs_cu::w_block128;
  static_assert(!blocked || A == kc::bs_cu::a_fp8_group, "128 x 128 weight blocks go with 128-column activation groups");
  extern __shared__ __align__(128) unsigned char smem[];
  const uint32_t sbase = (uint32_t(__cvta_generic_to_shared(smem)) + 1023) & ~1023u;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, wg = warp / 4;
  int tm, tn;
  kc::gemm_cu::raster(blockIdx.x, (M + kBM - 1) / kBM, (N + kBN - 1) / kBN, tm, tn);
  const int bm = tm * kBM, bn = tn * kBN;
  const int steps = (K + kBK - 1) / kBK;  // = the scales' K blocks
  const int r0 = bm + wg * 64 + (warp % 4) * 16 + lane / 4, r1 = r0 + 8;

  auto load = [&](int stage, int kt) {
    const uint32_t sa = sbase + stage * kStageBytes, sb = sa + kTileBytes;
#pragma unroll
    for (int i = 0; i < kBM * 8 / kThreads; ++i) {
      const int idx = tid + i * kThreads, r = idx / 8, c = idx % 8, gk = kt * kBK + c * 16;
      const bool va = bm + r < M && gk < K, vb = bn + r < N && gk < K;
      const uint32_t at = r * 128 + ((c ^ (r & 7)) << 4);
      cp_async16(sa + at, va ? xq + size_t(bm + r) * K + gk : xq, va);
      cp_async16(sb + at, vb ? q + size_t(bn + r) * K + gk : q, vb);
    }
  };
  // The step's scales for rows r0 and r1 (blocked forms): the weight block's times the row's group.
  // (Rows past M read row 0's scale: their outputs are never stored.)
  const float* sw = s + (bn / 128) * steps;
  const float* sx0 = sx + size_t(r0 < M ? r0 : 0) * steps;
  const float* sx1 = sx + size_t(r1 < M ? r1 : 0) * steps;
  auto scales = [&](int kt, float& c0, float& c1) {
    if constexpr (blocked) {
      const float ws = __ldg(sw + kt);
      c0 = ws * __ldg(sx0 + kt);
      c1 = ws * __ldg(sx1 + kt);
    } else {
      c0 = c1 = 1.f;
    }
  };
  auto mma = [&](int stage, float (&d)[64], bool from_zero) {
    const uint32_t sa = sbase + stage * kStageBytes + wg * 64 * 128, sb = sbase + stage * kStageBytes + kTileBytes;
#pragma unroll
    for (int kk = 0; kk < kBK / 32; ++kk)
      wgmma_e4m3_m64n128k32(d, desc128(sa + kk * 32), desc128(sb + kk * 32), (from_zero && kk == 0) ? 0 : 1);
  };

  float acc[64], p0[64], p1[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = 0.f, p0[i] = 0.f, p1[i] = 0.f;

#pragma unroll
  for (int st = 0; st < kStages - 2; ++st) {
    if (st < steps) load(st, st);
    kc::gemm_cu::cp_commit();
  }
  // Step st of the ring: its copies landed and visible, the stage of step st - 2 refilled, its
  // wgmma issued into cur; then the previous step's group is waited for and prev promoted.
  float c0 = 0, c1 = 0;  // the previous step's scales
  auto step = [&](int st, float (&cur)[64], float (&prev)[64]) {
    kc::gemm_cu::cp_wait<kStages - 3>();
    fence_async_shared();
    __syncthreads();
    const int nx = st + kStages - 2;
    if (nx < steps) load(nx % kStages, nx);
    kc::gemm_cu::cp_commit();
    float n0, n1;
    scales(st, n0, n1);
    wg_fence();
    if constexpr (F == f_never_promote) mma(st % kStages, acc, false);
    else mma(st % kStages, cur, true);
    wg_commit();
    if constexpr (F == f_never_promote) {
      wg_wait<1>(acc);
    } else {
      wg_wait<1>(prev);
      if (st > 0) promote(acc, prev, c0, c1);
    }
    c0 = n0, c1 = n1;
  };
  for (int st = 0; st < steps; st += 2) {
    step(st, p0, p1);
    if (st + 1 < steps) step(st + 1, p1, p0);
  }
  if constexpr (F == f_never_promote) {
    wg_wait<0>(acc);
  } else if (steps % 2) {  // the last step wrote p0
    wg_wait<0>(p0);
    promote(acc, p0, c0, c1);
  } else {
    wg_wait<0>(p1);
    promote(acc, p1, c0, c1);
  }
  kc::gemm_cu::cp_wait<0>();

  // Per-tensor and per-channel scales: the weights' (one, or the column's) times the activations'.
  const float st = W == kc::bs_cu::w_tensor ? s[0] * sx[0] : 1.f;
#pragma unroll
  for (int j = 0; j < kBN / 8; ++j) {
    const int c = bn + j * 8 + (lane % 4) * 2;
    float g0 = st, g1 = st;
    if constexpr (W == kc::bs_cu::w_channel) {
      g0 = c < N ? s[c] * sx[0] : 0.f;
      g1 = c + 1 < N ? s[c + 1] * sx[0] : 0.f;
    }
    if constexpr (blocked) {
      kc::gemm_cu::put2<Out>(y, M, N, r0, c, acc[4 * j], acc[4 * j + 1]);
      kc::gemm_cu::put2<Out>(y, M, N, r1, c, acc[4 * j + 2], acc[4 * j + 3]);
    } else {
      kc::gemm_cu::put2<Out>(y, M, N, r0, c, acc[4 * j] * g0, acc[4 * j + 1] * g1);
      kc::gemm_cu::put2<Out>(y, M, N, r1, c, acc[4 * j + 2] * g0, acc[4 * j + 3] * g1);
    }
  }
#else
  __trap();  // built for sm_90a only
#endif
}

// The exports' bodies, instantiated by fp8_gemm.cu (its kernels' one copy).
template <int W, int A> cudaError_t kc::fp8gemm::prepare_wgmma() {
  return cudaFuncSetAttribute(kc_fp8_gemm_wgmma<W, A, __nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              kSmemBytes);
}
template <int W, int A>
void kc::fp8gemm::served_wgmma(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y, int M,
                               int N, int K, void* stream) {
  const unsigned blocks = unsigned((M + 127) / 128) * unsigned((N + 127) / 128);
  kc_fp8_gemm_wgmma<W, A, __nv_bfloat16><<<blocks, kThreads, kSmemBytes, static_cast<cudaStream_t>(stream)>>>(
      xq, sx, q, s, static_cast<__nv_bfloat16*>(y), M, N, K);
}
#endif
