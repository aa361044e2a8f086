// Gate 1 control (negative NaN): a row max on order-preserving integer keys of the bf16 bits (all
// bits of a negative flipped, the sign bit of a positive set), trusting that a NaN's bits sort above
// +Inf's. A positive NaN's do (its key 0xffc0 tops 0xff80), the payload NaN's too; a negative NaN's
// key (0x003f) sorts below -Inf's (0x007f), so the row's finite max wins over it: finite where
// float64 gives NaN. (CPU twin: controls/cpu/rows_blind_spot_controls.cpp, the same fault in fp32.)
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__device__ __forceinline__ uint32_t kc_ctl_key(uint32_t b) { return (b & 0x8000u) ? (~b & 0xffffu) : (b | 0x8000u); }
__device__ __forceinline__ uint32_t kc_ctl_bits(uint32_t k) { return (k & 0x8000u) ? (k & 0x7fffu) : (~k & 0xffffu); }

__global__ void __launch_bounds__(256) kc_ctl_max_int_keys(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  uint32_t k = 0;
  for (int c = threadIdx.x % 32; c < cols; c += 32) {
    const uint32_t v = kc_ctl_key(x[row * cols + c]);
    k = v > k ? v : k;
  }
  k = warp_max_u32(k);
  if (threadIdx.x % 32 == 0) y[row] = uint16_t(kc_ctl_bits(k));
}

KC_CUDA_LAUNCH("rows/ctl_max_int_keys/bf16", kc_ctl_max_int_keys, 256, 0);
