// FP8 prompt projection on CUDA cores, the portable form of fp8_gemm_sm90a.cuh for every served SM
// without sm_90a's wgmma: the same inputs and scales, codes decoded in software (bs_decode.hpp,
// e4m3's NaN codes NaN). A block of 256 threads computes a 64 x 64 tile, a thread 4 x 4 outputs;
// K moves in 32-column steps through shared memory (decoded to fp32; a code times a code is exact
// there). Each 128 columns of K (a scale block) are summed by a chain of fma into a partial, then
// promoted to the accumulator with one fma times the block's scales, as the wgmma kernel does.
// Depth, per output: 128, one fma a block, and 1 where a block's scale is a product of two.
// The tile sizes and the exported launcher above the device guard are plain C++, for the registration.
#pragma once
#include <cstdint>

#include "../bs_gemv.cuh"

namespace kc::fp8gemm {
constexpr int kPM = 64, kPN = 64, kPK = 32, kPThreads = 256;

// The launcher fp8_gemm.cu exports to the contract (cuda.cpp): bf16 y [M, N] from e4m3 xq and q at
// scale form W, A, on the harness's stream.
template <int W, int A>
void served_simt(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y, int M, int N, int K,
                 void* stream);
}  // namespace kc::fp8gemm

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_runtime.h>

#include "../../common/kc_store.cuh"

// Grid (ceil(N / 64), ceil(M / 64)), 256 threads, no dynamic shared memory. K a multiple of 16.
template <int W, int A, class Out>
__global__ void __launch_bounds__(256)
kc_fp8_gemm_simt(const uint8_t* __restrict__ xq, const float* __restrict__ sx, const uint8_t* __restrict__ q,
                 const float* __restrict__ s, Out* __restrict__ y, int M, int N, int K) {
  using namespace kc::fp8gemm;
  constexpr bool blocked = W == kc::bs_cu::w_block128;
  __shared__ float sa[kPK][kPM + 4], sb[kPK][kPN + 4];  // [k][row]: a thread's 4 rows are one float4
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const int bn = blockIdx.x * kPN, bm = blockIdx.y * kPM;
  const int blocks = (K + 127) / 128;
  // The copy: thread t moves 8 codes of row t / 4 at column 8 (t % 4) of each operand's step.
  const int lr = tid / 4, lc = (tid % 4) * 8;
  auto stage = [&](const uint8_t* src, int rows, int r0, int k0, float (*dst)[kPM + 4]) {
    const int gk = k0 + lc;  // a multiple of 8 below K leaves 8 codes in the row (K % 16 == 0)
    uint2 v = make_uint2(0, 0);
    if (r0 + lr < rows && gk < K) v = *reinterpret_cast<const uint2*>(src + size_t(r0 + lr) * K + gk);
#pragma unroll
    for (int i = 0; i < 8; ++i) dst[lc + i][lr] = kc::bs::e4m3_f32(((i < 4 ? v.x : v.y) >> (8 * (i % 4))) & 0xFFu);
  };
  float acc[4][4] = {};
  for (int kb = 0; kb < blocks; ++kb) {
    float part[4][4] = {};
    for (int k0 = kb * 128; k0 < min(K, kb * 128 + 128); k0 += kPK) {
      stage(xq, M, bm, k0, sa);
      stage(q, N, bn, k0, sb);
      __syncthreads();
#pragma unroll 8
      for (int kk = 0; kk < kPK; ++kk) {
        const float4 a = *reinterpret_cast<const float4*>(&sa[kk][ty * 4]);
        const float4 b = *reinterpret_cast<const float4*>(&sb[kk][tx * 4]);
        const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) part[i][j] = fmaf(av[i], bv[j], part[i][j]);
      }
      __syncthreads();
    }
    const float ws = blocked ? s[(bn / 128) * blocks + kb] : 1.f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = bm + ty * 4 + i;
      const float c = blocked ? ws * (r < M ? sx[size_t(r) * blocks + kb] : 0.f) : 1.f;
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(part[i][j], c, acc[i][j]);
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = bm + ty * 4 + i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = bn + tx * 4 + j;
      if (r >= M || c >= N) continue;
      float v = acc[i][j];
      if (W == kc::bs_cu::w_tensor) v *= s[0] * sx[0];
      if (W == kc::bs_cu::w_channel) v *= s[c] * sx[0];
      kc_store<Out>(y, size_t(r) * N + c, v);
    }
  }
}

// The launcher's body, instantiated by fp8_gemm.cu (its kernels' one copy).
template <int W, int A>
void kc::fp8gemm::served_simt(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y, int M,
                              int N, int K, void* stream) {
  const dim3 grid(unsigned((N + 63) / 64), unsigned((M + 63) / 64));
  kc_fp8_gemm_simt<W, A, __nv_bfloat16><<<grid, kPThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      xq, sx, q, s, static_cast<__nv_bfloat16*>(y), M, N, K);
}
#endif
