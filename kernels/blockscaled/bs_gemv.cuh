// CUDA block-scaled GEMV (decode, 1-32 rows), portable to every served SM: FP4 codes decoded in
// software (bs_decode.hpp), e4m3 by the hardware's cvt from sm_89 on and in software below (equal
// on every code, NaN codes NaN: e4m3x16), fp32 sums, 16-byte loads of the weights.
//
// A block of 8 warps owns 8 W rows (outputs n), a warp one. Lane l takes the 16-byte pieces of its
// row at bytes 16 l, 16 l + 512, ...: 16 FP8 codes, or 32 FP4 ones (one MXFP4 block, two NVFP4
// blocks). Per piece and x row, a chain of fma over the piece's codes (a code times an activation is
// exact in fp32), then one fma adds that sum times its scale (its block's, and its activation
// group's where there is one: their product rounded once) into the row's accumulator. The 32 lanes
// meet in a butterfly of 5 shuffles; lane 0 applies the per-tensor and per-channel scales and
// stores. Depth, per output: the piece's chain, one fma a piece a lane holds, 5, and 1 where a
// scale is a product of two.
//
// The forms, depths and exported launchers above the device guard are plain C++, for the
// registrations (cuda.cpp); the kernels and the launchers' bodies are below it.
#pragma once
#include <cstdint>

#include "bs_decode.hpp"

namespace kc::bs_cu {

inline constexpr int kWarps = 8, kThreads = 32 * kWarps;
// Weight forms (template arguments: demangled as integers in the launch rows).
enum : int { w_tensor = 0, w_channel = 1, w_block128 = 2, w_mx = 3, w_nv = 4 };
enum : int { a_bf16 = 0, a_fp8_tensor = 1, a_fp8_group = 2 };
// A planted fault for the CUDA controls (controls/cuda/blockscaled): e4m3 weights' NaN codes read as
// +-480; a 128-column piece taking the next K block's weight scale; an FP4 byte's nibbles read high
// first; an e8m0 scale read one exponent high.
enum Fault : int { f_none = 0, f_nan_code_as_number = 1, f_neighbour_scale = 2, f_nibbles_swapped = 3, f_e8m0_off = 4 };

// Depth of an output (see the head of this file).
inline double fp8_depth(int64_t k, bool two_scales) { return double(16 + (k + 511) / 512 + 5 + (two_scales ? 1 : 0)); }
inline double fp4_depth(int64_t k, int block) { return double(block + (32 / block) * ((k + 1023) / 1024) + 5); }
// The instantiation a launch takes: x rows at most 8, 16 or 32.
inline int rows_form(int64_t m) { return m <= 8 ? 8 : m <= 16 ? 16 : 32; }

// The served GEMVs' launchers, bf16 y [M, N] from M <= 32 rows of x in the instantiation of
// rows_form(M), on the harness's stream: the FP8 one at weight form W and activations A (x bf16, or
// e4m3 codes with their scales sx), exported by fp8_gemv/fp8_gemv_<W>.cu; the FP4 one (MXFP4 or
// NVFP4, bf16 x, g NVFP4's tensor scale) by fp4_gemv/fp4_gemv.cu.
template <int W, int A>
void served_fp8_gemv(const void* x, const float* sx, const uint8_t* q, const float* s, void* y, int M, int N, int K,
                     void* stream);
template <int W>
void served_fp4_gemv(const uint16_t* x, const uint8_t* q, const uint8_t* s, const float* g, void* y, int M, int N,
                     int K, void* stream);

}  // namespace kc::bs_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace kc::bs_cu {

__device__ __forceinline__ float bf16_bits(uint32_t h) { return __uint_as_float(h << 16); }

// Word i of a 16-byte load, by name (indexing a local array through a cast puts it in local memory).
__device__ __forceinline__ uint32_t word(const uint4& v, int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; }

template <class Out> __device__ __forceinline__ Out to_out(float v);
template <> __device__ __forceinline__ float to_out<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 to_out<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// 16 e4m3 codes of a 16-byte load as fp32. From sm_89 on, the hardware's cvt from e4m3x2 (to f16x2,
// then fp32: both exact), which equals the software decode on all 65,536 pairs on the H200, NaN
// codes NaN (e4m3-decode-check); it takes about a third of the software decode's instructions,
// which bound the GEMV at one row. Below sm_89, the software decode.
__device__ __forceinline__ void e4m3x16(const uint4& v, float* w) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t((word(v, i / 2) >> (16 * (i % 2))) & 0xFFFFu), __NV_E4M3);
    const float2 f = __half22float2(__half2(h));
    w[2 * i] = f.x, w[2 * i + 1] = f.y;
  }
#else
#pragma unroll
  for (int i = 0; i < 16; ++i) w[i] = bs::e4m3_f32((word(v, i / 4) >> (8 * (i % 4))) & 0xFFu);
#endif
}

// 16 activations of row m at column j: bf16 (two 16-byte loads) or e4m3 codes (one).
template <int A> __device__ __forceinline__ void acts16(const void* x, int64_t at, float* a) {
  if constexpr (A == a_bf16) {
    const uint4* p = reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(x) + at);
    const uint4 v0 = p[0], v1 = p[1];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const uint32_t u = word(i < 4 ? v0 : v1, i % 4);
      a[2 * i] = bf16_bits(u & 0xFFFFu), a[2 * i + 1] = bf16_bits(u >> 16);
    }
  } else {
    // FP8 activations in software: they are decoded once a row a piece, and the hardware form
    // spills at 32 rows (ptxas 13.0, sm_90a).
    const uint4 v = *reinterpret_cast<const uint4*>(static_cast<const uint8_t*>(x) + at);
#pragma unroll
    for (int i = 0; i < 16; ++i) a[i] = bs::e4m3_f32((word(v, i / 4) >> (8 * (i % 4))) & 0xFFu);
  }
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

// FP8 weights (W: tensor, channel, block128) with bf16 or FP8 activations.
template <int MT, class Out, int W, int A, int F = f_none>
__global__ void __launch_bounds__(kThreads)
    kc_bs_fp8_gemv(const void* x, const float* sx, const uint8_t* q, const float* s, Out* y, int M, int N, int K) {
  const int lane = threadIdx.x % 32, n = blockIdx.x * kWarps + threadIdx.x / 32;
  if (n >= N) return;  // a whole warp: no block-wide barrier follows
  const int kb = (K + 127) / 128;
  float acc[MT];
#pragma unroll
  for (int m = 0; m < MT; ++m) acc[m] = 0;
  const uint8_t* qr = q + int64_t(n) * K;
  for (int j = lane * 16; j < K; j += 512) {
    const uint4 wv = *reinterpret_cast<const uint4*>(qr + j);
    float w[16];
    if constexpr (F == f_nan_code_as_number) {
#pragma unroll
      for (int i = 0; i < 16; ++i) w[i] = bs::e4m3_f32_no_nan((word(wv, i / 4) >> (8 * (i % 4))) & 0xFFu);
    } else {
      e4m3x16(wv, w);
    }
    const int wb = F == f_neighbour_scale ? (j / 128 + 1) % kb : j / 128;
    const float ws = W == w_block128 ? s[(n / 128) * kb + wb] : 1.0f;
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      if (m >= M) continue;  // not break: a loop that breaks is not unrolled, and acc goes to local memory
      float a[16];
      acts16<A>(x, int64_t(m) * K + j, a);
      float p = 0;
#pragma unroll
      for (int i = 0; i < 16; ++i) p = fmaf(a[i], w[i], p);
      const float cs = A == a_fp8_group ? ws * sx[m * kb + j / 128] : ws;
      acc[m] = fmaf(p, cs, acc[m]);
    }
  }
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    if (m >= M) continue;
    float v = warp_sum(acc[m]);
    if (W == w_tensor) v *= s[0];
    if (W == w_channel) v *= s[n];
    if (A == a_fp8_tensor) v *= sx[0];
    if (lane == 0) y[int64_t(m) * N + n] = to_out<Out>(v);
  }
}

// FP4 weights (MXFP4: e8m0 a 32; NVFP4: ue4m3 a 16, times g) with bf16 activations.
// The body, shared by the served kernel and the controls' (a fault F), so the served kernel's
// symbol and code stay those its records hold.
template <int MT, class Out, int W, int F>
__device__ __forceinline__ void fp4_gemv(const uint16_t* x, const uint8_t* q, const uint8_t* s, const float* g, Out* y,
                                         int M, int N, int K) {
  const int lane = threadIdx.x % 32, n = blockIdx.x * kWarps + threadIdx.x / 32;
  if (n >= N) return;
  constexpr int B = W == w_mx ? 32 : 16;
  float acc[MT];
#pragma unroll
  for (int m = 0; m < MT; ++m) acc[m] = 0;
  const uint8_t* qr = q + int64_t(n) * (K / 2);
  const uint8_t* sr = s + int64_t(n) * (K / B);
  for (int j = lane * 32; j < K; j += 1024) {
    const uint4 wv = *reinterpret_cast<const uint4*>(qr + j / 2);
    float w[32];
#pragma unroll
    for (int i = 0; i < 32; ++i)  // low nibble first
      w[i] = bs::e2m1_f32((word(wv, i / 8) >> (4 * ((F == f_nibbles_swapped ? i ^ 1 : i) % 8))) & 0xFu);
    float sc[32 / B];
#pragma unroll
    for (int b = 0; b < 32 / B; ++b) {
      const uint32_t c = sr[j / B + b];
      sc[b] = W != w_mx ? bs::ue4m3_f32(c) : bs::e8m0_f32(F == f_e8m0_off && c < 0xFE ? c + 1 : c);
    }
#pragma unroll
    for (int m = 0; m < MT; ++m) {
      if (m >= M) continue;
      float a[32];
      acts16<a_bf16>(x, int64_t(m) * K + j, a);
      acts16<a_bf16>(x, int64_t(m) * K + j + 16, a + 16);
#pragma unroll
      for (int b = 0; b < 32 / B; ++b) {
        float p = 0;
#pragma unroll
        for (int i = b * B; i < (b + 1) * B; ++i) p = fmaf(a[i], w[i], p);
        acc[m] = fmaf(p, sc[b], acc[m]);
      }
    }
  }
#pragma unroll
  for (int m = 0; m < MT; ++m) {
    if (m >= M) continue;
    float v = warp_sum(acc[m]);
    if (W == w_nv) v *= g[0];
    if (lane == 0) y[int64_t(m) * N + n] = to_out<Out>(v);
  }
}
template <int MT, class Out, int W>
__global__ void __launch_bounds__(kThreads)
    kc_bs_fp4_gemv(const uint16_t* x, const uint8_t* q, const uint8_t* s, const float* g, Out* y, int M, int N, int K) {
  fp4_gemv<MT, Out, W, f_none>(x, q, s, g, y, M, N, K);
}
template <int MT, class Out, int W, int F>
__global__ void __launch_bounds__(kThreads)
    kc_bs_fp4_gemv_fault(const uint16_t* x, const uint8_t* q, const uint8_t* s, const float* g, Out* y, int M, int N, int K) {
  fp4_gemv<MT, Out, W, F>(x, q, s, g, y, M, N, K);
}

// The launchers' bodies, instantiated by the unit that exports them (its kernels' one copy).
template <int W, int A>
void served_fp8_gemv(const void* x, const float* sx, const uint8_t* q, const float* s, void* y, int M, int N, int K,
                     void* stream) {
  const unsigned blocks = unsigned((N + kWarps - 1) / kWarps);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  auto* out = static_cast<__nv_bfloat16*>(y);
  if (M <= 8) kc_bs_fp8_gemv<8, __nv_bfloat16, W, A><<<blocks, kThreads, 0, st>>>(x, sx, q, s, out, M, N, K);
  else if (M <= 16) kc_bs_fp8_gemv<16, __nv_bfloat16, W, A><<<blocks, kThreads, 0, st>>>(x, sx, q, s, out, M, N, K);
  else kc_bs_fp8_gemv<32, __nv_bfloat16, W, A><<<blocks, kThreads, 0, st>>>(x, sx, q, s, out, M, N, K);
}
template <int W>
void served_fp4_gemv(const uint16_t* x, const uint8_t* q, const uint8_t* s, const float* g, void* y, int M, int N,
                     int K, void* stream) {
  const unsigned blocks = unsigned((N + kWarps - 1) / kWarps);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  auto* out = static_cast<__nv_bfloat16*>(y);
  if (M <= 8) kc_bs_fp4_gemv<8, __nv_bfloat16, W><<<blocks, kThreads, 0, st>>>(x, q, s, g, out, M, N, K);
  else if (M <= 16) kc_bs_fp4_gemv<16, __nv_bfloat16, W><<<blocks, kThreads, 0, st>>>(x, q, s, g, out, M, N, K);
  else kc_bs_fp4_gemv<32, __nv_bfloat16, W><<<blocks, kThreads, 0, st>>>(x, q, s, g, out, M, N, K);
}

}  // namespace kc::bs_cu
#endif
