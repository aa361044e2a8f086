// Gate 2 control: a row sum that writes into its input. It adds the row by pairs (a + b first, so
// the pair's order does not change the sum) and "tidies" each pair into ascending order in x as it
// goes. Its output is right and the same every run (the sort is idempotent), but x's bytes change
// wherever a pair was out of order: with 32 pairs and more a row, always.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_in_place_sum(uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int p = threadIdx.x % 32; 2 * p < cols; p += 32) {
    uint16_t* q = x + row * cols + 2 * p;
    const uint16_t ba = q[0], bb = q[1];
    const float a = bf16_to_f32(ba), b = bf16_to_f32(bb);
    s += a + b;
    if (b < a) q[0] = bb, q[1] = ba;
  }
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CUDA_LAUNCH("rows/ctl_in_place_sum/f32", kc_ctl_in_place_sum, 256, 0);
