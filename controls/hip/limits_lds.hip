// Gate 5 control (HIP): 40 KiB of static LDS, declared in launches.tsv with 32 KiB more dynamic
// LDS: 72 KiB against the 64 KiB a workgroup may hold on every served chip. The audit must report it.
#include "kc_gpu.h"

extern "C" __global__ __launch_bounds__(256) void kc_ctl_hip_lds_over(const float* x, float* y, int cols) {
  __shared__ float tile[10240];  // 40 KiB, static: the code object's group segment says so
  extern __shared__ float more[];  // the launch adds 32 KiB here
  const float* row = x + (size_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < 10240; c += blockDim.x) tile[c] = c < cols ? row[c] : 0.f;
  for (int c = threadIdx.x; c < 8192; c += blockDim.x) more[c] = c < cols ? row[cols - 1 - c] : 0.f;
  __syncthreads();
  float acc = 0.f;
  for (int c = threadIdx.x; c < 8192; c += blockDim.x) acc += tile[c] * more[c];
  y[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
