// Gate 5 control (HIP): a kernel bounded to 256 threads a workgroup, declared in launches.tsv at 512.
// clang fits the kernel's VGPRs to its bound (as hipcc does), so a launch past the bound is the form a
// register overflow takes on AMD. The audit must report this launch on every chip.
#include "kc_gpu.h"

extern "C" __global__ __launch_bounds__(256) void kc_ctl_hip_past_bound(const float* x, float* y, int cols) {
  __shared__ float part[256];
  const float* row = x + (size_t)blockIdx.x * cols;
  float acc = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += row[c];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int o = 128; o > 0; o >>= 1) {
    if ((int)threadIdx.x < o) part[threadIdx.x] += part[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}
