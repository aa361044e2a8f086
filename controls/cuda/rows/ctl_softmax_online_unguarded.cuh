// Gate 1 control (-Inf at the first column): an online softmax, one warp a row. Each lane keeps a
// running max m (from -Inf) and a sum rescaled by exp(m_old - m_new) at every value, with no guard
// for "nothing but -Inf so far": where a lane's first value is -Inf, exp_diff(-inf, -inf) is NaN,
// its sum NaN, and the merge makes the row NaN where float64 is finite. Columns 0..31 are the lanes'
// first values; gate 1's single plants at the middle (32 or more) and last columns meet a finite m
// and add exp(-inf) = 0, as they should. (CPU twin, one chain a row:
// controls/cpu/rows_blind_spot_controls.cpp, red on the same plant.)
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

// Merging two lanes' (m, s) keeps its guard: a side that holds only -Inf holds nothing.
__device__ __forceinline__ void kc_ctl_merge(float& m, float& s, float om, float os) {
  using namespace kc::cu;
  const float M = nan_max(m, om);
  if (M == -kInf) return;
  s = (m == M ? s : s * exp_diff(m, M)) + (om == M ? os : os * exp_diff(om, M));
  m = M;
}

__global__ void __launch_bounds__(256) kc_ctl_softmax_online_unguarded(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  const uint16_t* xr = x + row * cols;
  float m = -kInf, s = 0.f;
  for (int c = lane; c < cols; c += 32) {
    const float v = bf16_to_f32(xr[c]), M = nan_max(m, v);
    s = s * exp_diff(m, M) + exp_diff(v, M);  // the planted fault: no "if (M == -inf) continue"
    m = M;
  }
  for (int k = 16; k >= 1; k >>= 1)
    kc_ctl_merge(m, s, __shfl_xor_sync(KC_FULL_MASK, m, k), __shfl_xor_sync(KC_FULL_MASK, s, k));
  const float inv = 1.0f / s;
  for (int c = lane; c < cols; c += 32) y[row * cols + c] = uint16_t(f32_to_bf16(exp_diff(bf16_to_f32(xr[c]), m) * inv));
}

KC_CUDA_LAUNCH("rows/ctl_softmax_online_unguarded/bf16", kc_ctl_softmax_online_unguarded, 256, 0);
