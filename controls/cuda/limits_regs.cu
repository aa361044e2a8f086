// Gate 5 control (CUDA): a kernel that keeps 96 values live at once, so ptxas gives it more than 64
// registers a thread; launches.tsv declares it at 1,024 threads a block, which would need more than
// the 65,536 registers a block has. The audit must find that on every SM (control=regs).
#include <cstdint>

__global__ void kc_ctl_many_regs(const float* __restrict__ x, float* __restrict__ y, int n) {
  constexpr int kLive = 96;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float a[kLive];
#pragma unroll
  for (int i = 0; i < kLive; ++i) a[i] = x[(t + i * 1031) % n];
  // Every round reads neighbours' values, so all of them stay live across the loop.
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int i = 0; i < kLive; ++i) a[i] = fmaf(a[i], a[(i + 1) % kLive], a[(i + 37) % kLive]);
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < kLive; ++i) s += a[i] * static_cast<float>(i + 1);
  if (t < n) y[t] = s;
}
