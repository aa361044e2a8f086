// Gate 4 control: a row dot summed in half. Each product is rounded to fp16 and added into an fp16
// accumulator (a lane's chain, then the warp's butterfly in fp16). Its spec claims fp32 sums of a
// depth so deep that gate 3's gamma term hides fp16's error: only gate 4's exact integer sums,
// which run past fp16's range, can show it.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_half_dot(const uint16_t* x, const uint16_t* w, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  __half s = __float2half_rn(0.f);
  for (int c = threadIdx.x % 32; c < cols; c += 32)
    s = __hadd(s, __float2half_rn(bf16_to_f32(x[row * cols + c]) * bf16_to_f32(w[c])));
  for (int k = 16; k >= 1; k >>= 1) s = __hadd(s, __shfl_xor_sync(KC_FULL_MASK, s, k));
  if (threadIdx.x % 32 == 0) y[row] = __half2float(s);
}

KC_CUDA_LAUNCH("rows/ctl_half_dot/f32", kc_ctl_half_dot, 256, 0);
