// GeGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   gelu(g) = bf16(bf16(0.5 * g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2))))), y = bf16(gelu * u).
// Elementwise over rows x cols (cols % 8 == 0): V 16-byte vectors of g and u a thread, a block
// 256 x V contiguous vectors.
//
// Only the first step (g times an fp32 constant) and erf need fp32. Every later step is one op on
// bf16 values whose exact result fp32 holds (products of 8-bit significands; 1 + t), so one packed
// bf16x2 op, exact then rounded once, gives the bits the fp32 op and its rounding give: three
// instructions a pair instead of fifteen. With erff's ~25 an element, the fp32 steps left GeGLU short
// of issue slots at prompt sizes (84-89% of the copy at 8192 x 16,384 on the H200, moving from run
// to run); tests/cuda/geglu_bits_test.cu checks the bits against the fp32 steps for every g and u.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Vectors a thread (1, 2 or 4; the served launch is kc_geglu_bf16<kGegluV>): all its loads go out at
// once. 2: with the packed steps, 2 is 1-3% ahead of 4 at 8192 rows of 4,096 to 16,384 and at 32 rows
// (H200, three runs of bench/cuda/bench_rows.cu); 1 is 5-12% behind at prompt sizes.
constexpr int kGegluV = 2;

// Packed bf16 product and sum, each exact then rounded once to nearest even. HIP takes the fp32
// steps (the same bits, as above).
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

// One word (two elements) of g and u to one of y: t = bf16(erf(bf16(g / sqrt 2))) in fp32, then
// y = bf16(bf16(bf16(0.5 g) * bf16(1 + t)) * u) packed. A NaN g makes y NaN through 0.5 g.
__device__ __forceinline__ uint32_t geglu_word(uint32_t g, uint32_t u) {
  const float a0 = rb(bf16_lo(g) * 0.70710678118654752440f), a1 = rb(bf16_hi(g) * 0.70710678118654752440f);
  const uint32_t t = pack_bf16(erff(a0), erff(a1));
  const uint32_t h = bf2_mul(g, 0x3f003f00u), p = bf2_add(t, 0x3f803f80u);  // 0.5, 1 in both halves
  return bf2_mul(bf2_mul(h, p), u);
}
}  // namespace kc::cu

template <int V>
__global__ void __launch_bounds__(256)
kc_geglu_bf16(const kc_u4* __restrict__ g, const kc_u4* __restrict__ u, kc_u4* __restrict__ y, long nvec) {
  using namespace kc::cu;
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
    o.x = geglu_word(gv[k].x, uv[k].x);
    o.y = geglu_word(gv[k].y, uv[k].y);
    o.z = geglu_word(gv[k].z, uv[k].z);
    o.w = geglu_word(gv[k].w, uv[k].w);
    st16(y + i, o);
  }
}

namespace kc::cu {
inline void launch_geglu(const void* g, const void* u, void* y, long n, cudaStream_t st, int v = kGegluV) {
  const long nvec = n / 8;
  auto G = static_cast<const kc_u4*>(g);
  auto U = static_cast<const kc_u4*>(u);
  auto Y = static_cast<kc_u4*>(y);
  switch (v) {
    case 1: kc_geglu_bf16<1><<<unsigned((nvec + 255) / 256), 256, 0, st>>>(G, U, Y, nvec); break;
    case 2: kc_geglu_bf16<2><<<unsigned((nvec + 511) / 512), 256, 0, st>>>(G, U, Y, nvec); break;
    default: kc_geglu_bf16<4><<<unsigned((nvec + 1023) / 1024), 256, 0, st>>>(G, U, Y, nvec); break;
  }
}
}  // namespace kc::cu
