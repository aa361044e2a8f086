// GeGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   gelu(g) = bf16(bf16(0.5 * g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2))))), y = bf16(gelu * u).
// Elementwise over rows x cols (cols % 8 == 0): one 16-byte vector of g and u a thread.
#pragma once
#include "../../common/kc_rows.cuh"

namespace kc::cu {
__device__ __forceinline__ float geglu_steps(float g, float u) {
  const float t = rb(erff(rb(g * 0.70710678118654752440f)));
  const float gl = rb(rb(0.5f * g) * rb(1.0f + t));
  return rb(gl * u);
}
}  // namespace kc::cu

__global__ void __launch_bounds__(256)
kc_geglu_bf16(const kc_u4* __restrict__ g, const kc_u4* __restrict__ u, kc_u4* __restrict__ y, long nvec) {
  using namespace kc::cu;
  const long i = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nvec) return;
  float a[8], b[8], o[8];
  unpack8(ld16(g + i), a);
  unpack8(ld16(u + i), b);
#pragma unroll
  for (int j = 0; j < 8; ++j) o[j] = geglu_steps(a[j], b[j]);
  Store8<Bf16Out>::at(reinterpret_cast<Bf16Out*>(y + i), o);
}

namespace kc::cu {
inline void launch_geglu(const void* g, const void* u, void* y, long n, cudaStream_t st) {
  const long nvec = n / 8;
  kc_geglu_bf16<<<unsigned((nvec + 255) / 256), 256, 0, st>>>(static_cast<const kc_u4*>(g), static_cast<const kc_u4*>(u),
                                                             static_cast<kc_u4*>(y), nvec);
}
}  // namespace kc::cu
