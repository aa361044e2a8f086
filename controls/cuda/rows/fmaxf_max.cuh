// Gate 1 control: a row max by fmaxf, which drops a NaN (fmaxf(NaN, x) = x). A row holding a NaN
// comes out finite where float64's max is NaN: a class mismatch.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_fmaxf_max(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float m = -kInf;
  for (int c = threadIdx.x % 32; c < cols; c += 32) m = fmaxf(m, bf16_to_f32(x[row * cols + c]));
  for (int k = 16; k >= 1; k >>= 1) m = fmaxf(m, __shfl_xor_sync(KC_FULL_MASK, m, k));
  if (threadIdx.x % 32 == 0) y[row] = uint16_t(f32_to_bf16(m));
}

KC_CUDA_LAUNCH("rows/ctl_fmaxf_max/bf16", kc_ctl_fmaxf_max, 256, 0);
