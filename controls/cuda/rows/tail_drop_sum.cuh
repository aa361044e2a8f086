// Gate 3 control: a row sum in tiles of 32 columns (one a lane) whose partial last tile loses its
// last input. At whole tiles (every served width) it is right; at the edges gate 3 visits (least,
// tile - step, tile + step) the dropped term shows as a bound failure.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_tail_drop_sum(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int end = cols % 32 ? cols - 1 : cols;  // the planted fault
  float s = 0.f;
  for (int c = threadIdx.x % 32; c < end; c += 32) s += bf16_to_f32(x[row * cols + c]);
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CUDA_LAUNCH("rows/ctl_tail_drop_sum/f32", kc_ctl_tail_drop_sum, 256, 0);
