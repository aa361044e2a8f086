// Gate 1 control (a read past an input): a row sum whose loop runs to c <= cols, one column too many.
// Rows above the last read the next row's first value; the last row reads the element after x's
// end, which lies in x's NaN guard (the padding to 256 bytes, where the backend ends x at unmapped
// memory; the guard itself, where it cannot). The last row's sum is then NaN where float64's is
// finite: a class mismatch at gate 1's first case (y[6] at 7 rows, whatever row 3's plant). The CPU
// twin (rows/ctl_overread_end/f32 in controls/cpu/rows_overread_controls.cpp) reads the same element
// and faults at gate 1's first launch instead, its x ending at a protected page.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_overread_end(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = threadIdx.x % 32; c <= cols; c += 32) s += bf16_to_f32(x[row * cols + c]);  // the planted fault
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CUDA_LAUNCH("rows/ctl_overread_end/f32", kc_ctl_overread_end, 256, 0);
