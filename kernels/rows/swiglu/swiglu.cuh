// SwiGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   sigmoid(g) = bf16(1 / bf16(1 + bf16(exp(-g)))), silu = bf16(g * sigmoid), y = bf16(silu * u).
// Elementwise over rows x cols (cols % 8 == 0): V 16-byte vectors of g and u a thread, a block
// 256 x V contiguous vectors.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Vectors a thread (1, 2 or 4; the served launch is kc_swiglu_bf16<kSwigluV>): all its loads go out at once.
// 1 here: at the copy's rate already (H200, 8192 rows x 4,096..16,384: 103-107% of the copy).
constexpr int kSwigluV = 1;
// Two elements' steps side by side, each rounding point a packed bf16x2 conversion (the same
// nearest-even rounding as one at a time). y is left unrounded: the bf16 store rounds it.
__device__ __forceinline__ void swiglu_steps2(float g0, float g1, float u0, float u1, float& y0, float& y1) {
  float e0 = expf(-g0), e1 = expf(-g1);
  rb2(e0, e1);
  float d0 = 1.0f + e0, d1 = 1.0f + e1;
  rb2(d0, d1);
  float s0 = 1.0f / d0, s1 = 1.0f / d1;
  rb2(s0, s1);
  float t0 = g0 * s0, t1 = g1 * s1;
  rb2(t0, t1);
  y0 = t0 * u0;
  y1 = t1 * u1;
}
}  // namespace kc::cu

template <int V>
__global__ void __launch_bounds__(256)
kc_swiglu_bf16(const kc_u4* __restrict__ g, const kc_u4* __restrict__ u, kc_u4* __restrict__ y, long nvec) {
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
    float a[8], b[8], o[8];
    unpack8(gv[k], a);
    unpack8(uv[k], b);
#pragma unroll
    for (int j = 0; j < 8; j += 2) swiglu_steps2(a[j], a[j + 1], b[j], b[j + 1], o[j], o[j + 1]);
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + i), o);
  }
}

namespace kc::cu {
inline void launch_swiglu(const void* g, const void* u, void* y, long n, cudaStream_t st, int v = kSwigluV) {
  const long nvec = n / 8;
  auto G = static_cast<const kc_u4*>(g);
  auto U = static_cast<const kc_u4*>(u);
  auto Y = static_cast<kc_u4*>(y);
  switch (v) {
    case 1: kc_swiglu_bf16<1><<<unsigned((nvec + 255) / 256), 256, 0, st>>>(G, U, Y, nvec); break;
    case 2: kc_swiglu_bf16<2><<<unsigned((nvec + 511) / 512), 256, 0, st>>>(G, U, Y, nvec); break;
    default: kc_swiglu_bf16<4><<<unsigned((nvec + 1023) / 1024), 256, 0, st>>>(G, U, Y, nvec); break;
  }
}
}  // namespace kc::cu
