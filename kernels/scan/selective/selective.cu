// The CUDA unit of the selective scan (selective.cuh): the launcher its contracts (cuda.cpp) call, and its launch.
#include "selective.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::scan_selective(const float* x, const float* dt, const float* a, const float* B, const float* C,
                            const float* h0, float* y, float* h, int steps, int channels, int chunk, void* stream, bool lose_carry) {
  const int blocks = (channels + kScanThreads - 1) / kScanThreads;
  const int step = chunk > 0 ? chunk : steps;
  const float* from = h0;
  for (int t0 = 0; t0 < steps; t0 += step) {  // the state carried through h between chunks
    kc_scan_selective<<<blocks, kScanThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        x, dt, a, B, C, from, y, h, t0, t0 + step < steps ? t0 + step : steps, channels);
    from = lose_carry ? h0 : h;
  }
}

KC_CUDA_LAUNCH("scan/selective", (kc_scan_selective), kc::cu::kScanThreads, 0);
