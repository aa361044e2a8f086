// The GLU rows' shared kernel (rows/swiglu, rows/geglu): y = act(g) * u elementwise over bf16 rows,
// each activation in MLX's bf16 op-by-op steps given as a Word: one 32-bit word of y (two bf16) from
// one word of g and one of u. cols % 8 == 0: V 16-byte vectors of g and u a thread, a block 256 x V
// contiguous vectors, all of a thread's loads out at once. Device code only: a host-only compile of
// a GLU row's registration (its cuda.cpp) sees nothing of it.
#pragma once
#include "kc_rows.cuh"

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// Packed bf16 product and sum, each exact then rounded once to nearest even. On bf16 inputs whose
// exact result fp32 holds (a product of two 8-bit significands; 1 + t), that is the bits of the
// fp32 op followed by a rounding to bf16: the steps' rounding points, in one instruction a pair
// (tests/cuda/glu_bits_test.cu checks every pair). HIP takes the fp32 steps.
#if defined(__CUDACC__)
__device__ __forceinline__ uint32_t bf2_mul(uint32_t a, uint32_t b) {
  const __nv_bfloat162 r = __hmul2(*reinterpret_cast<const __nv_bfloat162*>(&a), *reinterpret_cast<const __nv_bfloat162*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}
__device__ __forceinline__ uint32_t bf2_add(uint32_t a, uint32_t b) {
  const __nv_bfloat162 r = __hadd2(*reinterpret_cast<const __nv_bfloat162*>(&a), *reinterpret_cast<const __nv_bfloat162*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}
#else
__device__ __forceinline__ uint32_t bf2_mul(uint32_t a, uint32_t b) {
  return pack_bf16(bf16_lo(a) * bf16_lo(b), bf16_hi(a) * bf16_hi(b));
}
__device__ __forceinline__ uint32_t bf2_add(uint32_t a, uint32_t b) {
  return pack_bf16(bf16_lo(a) + bf16_lo(b), bf16_hi(a) + bf16_hi(b));
}
#endif
}  // namespace kc::cu

template <int V, class Word>
__global__ void __launch_bounds__(256)
kc_glu_bf16(const kc_u4* __restrict__ g, const kc_u4* __restrict__ u, kc_u4* __restrict__ y, long nvec) {
  using namespace kc::cu;
  const Word word{};
  const long i0 = long(blockIdx.x) * (256 * V) + threadIdx.x;
  kc_u4 gv[V], uv[V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const long i = i0 + k * 256;
    if (i < nvec) gv[k] = ld16(g + i), uv[k] = ld16(u + i);
  }
#pragma unroll
  for (int k = 0; k < V; ++k) {
    const long i = i0 + k * 256;
    if (i >= nvec) break;
    kc_u4 o;
    o.x = word(gv[k].x, uv[k].x);
    o.y = word(gv[k].y, uv[k].y);
    o.z = word(gv[k].z, uv[k].z);
    o.w = word(gv[k].w, uv[k].w);
    st16(y + i, o);
  }
}

namespace kc::cu {
// n elements (rows x cols); v vectors a thread: 1, 2 or 4.
template <class Word> inline void launch_glu(const void* g, const void* u, void* y, long n, cudaStream_t st, int v) {
  if (v != 1 && v != 2) v = 4;
  const long nvec = n / 8;
  const unsigned blocks = unsigned((nvec + 256L * v - 1) / (256L * v));
  auto G = static_cast<const kc_u4*>(g);
  auto U = static_cast<const kc_u4*>(u);
  auto Y = static_cast<kc_u4*>(y);
  if (v == 1) kc_glu_bf16<1, Word><<<blocks, 256, 0, st>>>(G, U, Y, nvec);
  else if (v == 2) kc_glu_bf16<2, Word><<<blocks, 256, 0, st>>>(G, U, Y, nvec);
  else kc_glu_bf16<4, Word><<<blocks, 256, 0, st>>>(G, U, Y, nvec);
}
}  // namespace kc::cu
#endif
