// GeGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   gelu(g) = bf16(bf16(0.5 * g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2))))), y = bf16(gelu * u).
// Elementwise over rows x cols (cols % 8 == 0): V 16-byte vectors of g and u a thread, a block
// 256 x V contiguous vectors.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
// Vectors a thread (1, 2 or 4; the served launch is kc_geglu_bf16<kGegluV>): all its loads go out at once.
// 4 here: erff's arithmetic leaves GeGLU short of loads in flight at 1 (H200, 8192 rows x 8,192:
// 84% of the copy at 1, 99% at 4; bench/cuda/bench_rows.cu).
constexpr int kGegluV = 4;
// Two elements' steps side by side, each rounding point a packed bf16x2 conversion (the same
// nearest-even rounding as one at a time). y is left unrounded: the bf16 store rounds it.
__device__ __forceinline__ void geglu_steps2(float g0, float g1, float u0, float u1, float& y0, float& y1) {
  float a0 = g0 * 0.70710678118654752440f, a1 = g1 * 0.70710678118654752440f;
  rb2(a0, a1);
  float t0 = erff(a0), t1 = erff(a1);
  rb2(t0, t1);
  float h0 = 0.5f * g0, h1 = 0.5f * g1;
  rb2(h0, h1);
  float p0 = 1.0f + t0, p1 = 1.0f + t1;
  rb2(p0, p1);
  float q0 = h0 * p0, q1 = h1 * p1;
  rb2(q0, q1);
  y0 = q0 * u0;
  y1 = q1 * u1;
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
    float a[8], b[8], o[8];
    unpack8(gv[k], a);
    unpack8(uv[k], b);
#pragma unroll
    for (int j = 0; j < 8; j += 2) geglu_steps2(a[j], a[j + 1], b[j], b[j + 1], o[j], o[j + 1]);
    Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + i), o);
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
