// Far-offset control (gate 7): a row sum that keeps a row's byte offset in 32 bits, as a kernel
// computing `unsigned` byte offsets for its loads does. One block a row, 256 threads, each summing
// its strided columns, then a tree over the block. Below 4 GiB of input it is a correct fp32 row
// sum (gates 1-4 pass at the served shapes); at the far shape (65537 rows of 16384 floats, 4 GiB and
// 64 KiB) row 65536's offset wraps to 0 and it sums row 0 again.
#pragma once
#include "kc/cuda_launch.hpp"

__global__ void __launch_bounds__(256) kc_ctl_u32_offset(const float* x, float* y, int cols) {
  __shared__ float part[256];
  const unsigned offset = blockIdx.x * unsigned(cols) * unsigned(sizeof(float));  // the planted fault
  const float* xr = reinterpret_cast<const float*>(reinterpret_cast<const char*>(x) + offset);
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 256) s += xr[c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}

KC_CUDA_LAUNCH("rows/ctl_u32_offset/f32", kc_ctl_u32_offset, 256, 0);
