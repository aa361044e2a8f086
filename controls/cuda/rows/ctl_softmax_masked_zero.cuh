// Gate 1 control (a row of -Inf): a softmax that writes a fully masked row as zeros ("nothing to
// attend to"), a rule it never states. float64 gives NaN there (exp(-inf - -inf)); a row of -Inf
// but one finite value, and every single -Inf, leave the max finite and pass. One warp a row: max,
// sum of exp_diff, y = e * (1 / sum). (CPU twin: controls/cpu/rows_blind_spot_controls.cpp.)
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_softmax_masked_zero(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  const uint16_t* xr = x + row * cols;
  uint16_t* yr = y + row * cols;
  float m = -kInf;
  for (int c = lane; c < cols; c += 32) m = nan_max(m, bf16_to_f32(xr[c]));
  m = warp_all(m, Max());
  if (m == -kInf) {  // the planted rule
    for (int c = lane; c < cols; c += 32) yr[c] = 0;
    return;
  }
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += exp_diff(bf16_to_f32(xr[c]), m);
  const float inv = 1.0f / warp_all(s, Add());
  for (int c = lane; c < cols; c += 32) yr[c] = uint16_t(f32_to_bf16(exp_diff(bf16_to_f32(xr[c]), m) * inv));
}

KC_CUDA_LAUNCH("rows/ctl_softmax_masked_zero/bf16", kc_ctl_softmax_masked_zero, 256, 0);
