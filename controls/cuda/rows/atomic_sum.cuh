// Gate 2 control: a row sum by atomicAdd whose order changes from run to run on purpose. Each lane
// sums its strided columns, then the 32 lanes atomicAdd their partials into y[row] one at a time,
// in an order set by a per-launch counter (rotated by 7 lanes a run, reversed on odd runs). The
// inputs are fp32 of spread magnitudes, so the partials carry all 24 bits and their sum rounds
// differently in another order: over five runs the bytes differ (every row), while each run stays
// within gate 3's bound. (A bf16 row's sum is exact in fp32 in any order: that is why fp32 in.)
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_atomic_sum(const float* x, float* y, int rows, int cols, unsigned run) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += x[row * cols + c];
  for (int k = 0; k < 32; ++k) {
    const int turn = (run & 1) ? 31 - ((k + 7 * int(run)) & 31) : (k + 7 * int(run)) & 31;
    if (lane == turn) atomicAdd(&y[row], s);
    __syncwarp();
    __threadfence();  // each add lands before the next lane's
  }
}

KC_CUDA_LAUNCH("rows/ctl_atomic_sum/f32", kc_ctl_atomic_sum, 256, 0);
