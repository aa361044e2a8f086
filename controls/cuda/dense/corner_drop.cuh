// Control dense/ctl_corner_drop/f32, device code (gate 3's corner shape): a GEMV in tiles of 8 outputs
// (a block, one warp an output) whose K tail (past the last whole 64-column tile) is summed only on
// the full-tile path; the last, partial tile of outputs takes the guarded path, which loops over whole
// K tiles alone. So it is wrong only where N and K are both ragged: gate 3's corner (n 9, k 65),
// never a shape with one dim ragged (gate 1's tile edges, gate 3's one-dim edges). Same fault and
// shape as its CPU twin (controls/cpu/dense_corner_controls.cpp). Registered in cuda.cpp.
#pragma once
#include "../common.cuh"
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_corner_drop(const uint16_t* x, const uint16_t* w, float* y, int N, int K) {
  using namespace kc::cu;
  const int lane = threadIdx.x % 32, n0 = blockIdx.x * 8, n = n0 + threadIdx.x / 32, m = blockIdx.y;
  if (n >= N) return;
  const uint16_t* xr = x + long(m) * K;
  const uint16_t* wr = w + long(n) * K;
  const int whole = K / 64 * 64;
  float acc = 0.f;  // a bf16 x bf16 product is exact in fp32: one rounding a term
  for (int k = lane; k < whole; k += 32) acc = fmaf(bf16_to_f32(xr[k]), bf16_to_f32(wr[k]), acc);
  if (n0 + 8 <= N)  // the planted fault: the K tail on the full-tile path only
    for (int k = whole + lane; k < K; k += 32) acc = fmaf(bf16_to_f32(xr[k]), bf16_to_f32(wr[k]), acc);
  acc = warp_all(acc, Add());
  if (lane == 0) y[long(m) * N + n] = acc;
}

KC_CUDA_LAUNCH("dense/ctl_corner_drop/f32", kc_ctl_corner_drop, 256, 0, 1, "-");
