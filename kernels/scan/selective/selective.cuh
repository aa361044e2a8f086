// The selective scan on CUDA (kc/families/scan.hpp): a thread a channel, Mamba's 16 states in
// registers, the window's steps in order; y's sum over the state is one chain, n ascending. The
// chunked form launches the same kernel once per 64 steps, the state carried through h between
// launches: each channel's operations are the sequential kernel's, so it must equal it bit for bit.
#pragma once

namespace kc::cu {
inline constexpr int kScanThreads = 32;  // a warp a block: a layer's thousands of channels fill the SMs
inline constexpr int kScanState = 16;
inline constexpr int kScanChunk = 64;
// f32 x, dt [steps, channels], a [channels, 16], B, C [steps, 16], h0 [channels, 16]; y [steps,
// channels], h [channels, 16]. chunk = 0: one launch over the window. lose_carry: the control's fault
// (controls/cuda/moe), every chunk restarting from h0.
void scan_selective(const float* x, const float* dt, const float* a, const float* B, const float* C, const float* h0,
                    float* y, float* h, int steps, int channels, int chunk, void* stream, bool lose_carry = false);
}  // namespace kc::cu

#if defined(__CUDACC__)
__global__ void __launch_bounds__(kc::cu::kScanThreads)
kc_scan_selective(const float* __restrict__ x, const float* __restrict__ dt, const float* __restrict__ a,
                  const float* __restrict__ B, const float* __restrict__ C, const float* h_in, float* y, float* h_out,
                  int t0, int t1, int channels) {
  constexpr int S = kc::cu::kScanState;
  const int d = blockIdx.x * kc::cu::kScanThreads + threadIdx.x;
  if (d >= channels) return;
  float h[S], ad[S];
#pragma unroll
  for (int n = 0; n < S; ++n) h[n] = h_in[d * S + n], ad[n] = a[d * S + n];
  for (int t = t0; t < t1; ++t) {
    const float dd = dt[long(t) * channels + d], dx = dd * x[long(t) * channels + d];
    float s = 0.f;
#pragma unroll
    for (int n = 0; n < S; ++n) {
      h[n] = expf(-(dd * ad[n])) * h[n] + dx * B[t * S + n];
      s += C[t * S + n] * h[n];
    }
    y[long(t) * channels + d] = s;
  }
#pragma unroll
  for (int n = 0; n < S; ++n) h_out[d * S + n] = h[n];
}
#endif
