// Gate 3 control: GeGLU with one of MLX's rounding points dropped: gelu(g) is not rounded to bf16
// before the product with u. The rounding-point interval check must catch it.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_geglu_drop_gelu(const uint16_t* g, const uint16_t* u, uint16_t* y, long n) {
  using namespace kc::cu;
  const long i = long(blockIdx.x) * 256 + threadIdx.x;
  if (i >= n) return;
  const float gf = bf16_to_f32(g[i]), uf = bf16_to_f32(u[i]);
  const float t = rb(erff(rb(gf * 0.70710678118654752440f)));
  const float gl = rb(0.5f * gf) * rb(1.0f + t);  // planted: the rounding of gelu(g) dropped
  y[i] = uint16_t(f32_to_bf16(gl * uf));
}

KC_CUDA_LAUNCH("rows/ctl_geglu_drop_gelu/bf16", kc_ctl_geglu_drop_gelu, 256, 0);
