// Gate 5 control (CUDA): a kernel compiled with __launch_bounds__(128), declared in launches.tsv as
// launched with 256 threads a block. The audit must find the launch past the bound on every SM
// (control=bounds); a run in which it does not fails.
#include <cstdint>

__global__ void __launch_bounds__(128) kc_ctl_past_bounds(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
