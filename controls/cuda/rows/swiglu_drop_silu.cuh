// Gate 3 control: SwiGLU with one of MLX's rounding points dropped: silu = g * sigmoid is not
// rounded to bf16 before the product with u. The rounding-point interval check must catch it.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_swiglu_drop_silu(const uint16_t* g, const uint16_t* u, uint16_t* y, long n) {
  using namespace kc::cu;
  const long i = long(blockIdx.x) * 256 + threadIdx.x;
  if (i >= n) return;
  const float gf = bf16_to_f32(g[i]), uf = bf16_to_f32(u[i]);
  const float sg = rb(1.0f / rb(1.0f + rb(expf(-gf))));
  y[i] = uint16_t(f32_to_bf16((gf * sg) * uf));  // planted: rb(gf * sg) dropped
}

KC_CUDA_LAUNCH("rows/ctl_swiglu_drop_silu/bf16", kc_ctl_swiglu_drop_silu, 256, 0);
