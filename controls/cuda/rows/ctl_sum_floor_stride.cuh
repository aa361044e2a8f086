// Gate 3 control (second size of rows): a row sum that loads the row in 16-byte vectors of 8 bf16
// and a scalar tail, and starts row r at r * 8 * (cols / 8): its width in whole vectors, rounded
// down, which keeps every vector load aligned. Right at one row and at whole vectors (every served
// width); at 2 rows and a ragged width row 1 reads row 0's columns (in bounds: the stride is short,
// never past x), as its CPU twin does (controls/cpu/rows_blind_spot_controls.cpp): red at rows 2,
// cols 1, the first shape gate 3 runs with rows at its second size and cols ragged.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_sum_floor_stride(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32, nvec = cols / 8;
  const uint16_t* xr = x + row * nvec * 8;  // the planted fault: row * cols
  float s = 0.f;
  for (int v = lane; v < nvec; v += 32) {
    float f[8];
    unpack8(ld16(xr + 8 * v), f);
#pragma unroll
    for (int j = 0; j < 8; ++j) s += f[j];
  }
  for (int c = nvec * 8 + lane; c < cols; c += 32) s += bf16_to_f32(xr[c]);
  s = warp_all(s, Add());
  if (lane == 0) y[row] = s;
}

KC_CUDA_LAUNCH("rows/ctl_sum_floor_stride/f32", kc_ctl_sum_floor_stride, 256, 0);
