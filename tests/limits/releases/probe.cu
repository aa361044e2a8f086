// A small kernel whose registers nvcc releases allocate differently: on sm_120, 13.0 gives
// kc_release_probe<4> 73 registers and 13.5 75 (tests/limits/releases/run_releases.sh).
#include <cuda_bf16.h>

template <int V>
__global__ void __launch_bounds__(256) kc_release_probe(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ r,
                                                        const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ y,
                                                        __nv_bfloat16* __restrict__ h, int n, float eps) {
  const int row = blockIdx.x;
  float v[V * 8];
  float ss = 0.f;
  for (int c = 0; c < V; ++c) {
    const int i = (threadIdx.x + c * blockDim.x) * 8;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const float a = i + j < n ? __bfloat162float(x[row * n + i + j]) + __bfloat162float(r[row * n + i + j]) : 0.f;
      v[c * 8 + j] = __bfloat162float(__float2bfloat16(a));
      ss += v[c * 8 + j] * v[c * 8 + j];
    }
  }
  __shared__ float part[32];
  for (int o = 16; o; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x < 32) {
    ss = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.f;
    for (int o = 16; o; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    if (threadIdx.x == 0) part[0] = rsqrtf(ss / n + eps);
  }
  __syncthreads();
  const float s = part[0];
  for (int c = 0; c < V; ++c) {
    const int i = (threadIdx.x + c * blockDim.x) * 8;
#pragma unroll
    for (int j = 0; j < 8; ++j)
      if (i + j < n) {
        h[row * n + i + j] = __float2bfloat16(v[c * 8 + j]);
        y[row * n + i + j] = __float2bfloat16(v[c * 8 + j] * s * __bfloat162float(w[i + j]));
      }
  }
}
template __global__ void kc_release_probe<1>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, int, float);
template __global__ void kc_release_probe<2>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, int, float);
template __global__ void kc_release_probe<4>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*, __nv_bfloat16*, int, float);
