// Gate 2 control under load: a row sum whose consumers wait a fixed time for a tile instead of a
// barrier. One block a row, 128 threads; each tile of 256 columns is loaded by warp 0 alone (each
// value scaled by the runtime factor `one` 512 times, exact, standing for a dequantizing load's
// work), and the 4 warps read it after spinning kWaitCycles instead of at __syncthreads(). On an idle
// SM warp 0 is done in about a third of that; beside warps of other kernels that take its
// scheduler's issue slots it is not, and warps 1-3 read the tile before it (the previous tile, or
// what the SM last held): other bytes than an idle run's. compute-sanitizer's racecheck reports the
// write and the read without a barrier between them whatever the timing.
#include <cuda_runtime.h>

#include "kc/cuda_launch.hpp"

namespace {
constexpr int kTile = 256, kThreads = 128, kScaleSteps = 512;
constexpr long long kWaitCycles = 20000;
}  // namespace

__global__ void __launch_bounds__(kThreads) kc_ctl_timed_tile(const float* x, float* y, int cols, float one) {
  __shared__ float tile[kTile];
  __shared__ float part[kThreads];
  const float* xr = x + long(blockIdx.x) * cols;
  const int t = threadIdx.x;
  float acc = 0.f;
  for (int c0 = 0; c0 < cols; c0 += kTile) {
    const long long t0 = clock64();
    if (t < 32) {
      float v[kTile / 32];
#pragma unroll
      for (int k = 0; k < kTile / 32; ++k) v[k] = c0 + t + 32 * k < cols ? xr[c0 + t + 32 * k] : 0.f;
#pragma unroll 1
      for (int s = 0; s < kScaleSteps; ++s)
#pragma unroll
        for (int k = 0; k < kTile / 32; ++k) v[k] *= one;
#pragma unroll
      for (int k = 0; k < kTile / 32; ++k) tile[t + 32 * k] = v[k];
    }
    while (clock64() - t0 < kWaitCycles) {}  // the planted fault: __syncthreads() belongs here
    acc += tile[t];
    acc += tile[t + kThreads];
    __syncthreads();  // read before the next tile overwrites it
  }
  part[t] = acc;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (t < w) part[t] += part[t + w];
    __syncthreads();
  }
  if (t == 0) y[blockIdx.x] = part[0];
}

KC_CUDA_LAUNCH("rows/ctl_timed_tile/f32", kc_ctl_timed_tile, kThreads, 0);

namespace kc::rows_ctl {
void timed_tile(const float* x, float* y, int rows, int cols, void* stream) {
  kc_ctl_timed_tile<<<rows, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, y, cols, 1.0f);
}
}  // namespace kc::rows_ctl
