// Gate 1 control (a row of -Inf): a row max whose running value starts at -FLT_MAX, "the lowest
// float". Every finite value (bf16's lowest included) and every infinity but -Inf beats it, so the
// single plants pass; a whole row of -Inf comes out -FLT_MAX where float64's max is -Inf. The
// output is fp32: rounded to bf16, -FLT_MAX would become -Inf and hide the fault. (CPU twin:
// controls/cpu/rows_blind_spot_controls.cpp, red on the same plant.)
#pragma once
#include <cfloat>

#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_max_flt_max(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float m = -FLT_MAX;  // the planted fault
  for (int c = threadIdx.x % 32; c < cols; c += 32) m = nan_max(m, bf16_to_f32(x[row * cols + c]));
  m = warp_all(m, Max());
  if (threadIdx.x % 32 == 0) y[row] = m;
}

KC_CUDA_LAUNCH("rows/ctl_max_flt_max/f32", kc_ctl_max_flt_max, 256, 0);
