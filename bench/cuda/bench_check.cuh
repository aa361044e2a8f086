// What every standalone CUDA benchmark shares: a failed CUDA or cuBLAS call names itself, its
// file and line, and ends the run (a benchmark that went on would time garbage); and the timing
// method (kc_bench::time_us).
#pragma once
#include <cstdio>
#include <cstdlib>

#define CK(...)                                                                                         \
  do {                                                                                                  \
    cudaError_t e_ = (__VA_ARGS__);                                                                     \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "%s:%d %s: %s: %s\n", __FILE__, __LINE__, #__VA_ARGS__, cudaGetErrorName(e_), \
                   cudaGetErrorString(e_));                                                             \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

// cuBLAS calls (only where the benchmark includes cublas_v2.h first).
#define CB(...)                                                                             \
  do {                                                                                      \
    cublasStatus_t s_ = (__VA_ARGS__);                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s:%d %s: cublas %d\n", __FILE__, __LINE__, #__VA_ARGS__, int(s_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace kc_bench {
// The method every GPU benchmark here times with: f(i) launches on input set i; one warm pass over
// the sets (module load, first touch), then 7 trials of `reps` back-to-back launches rotating
// through them between two events; the median trial, in us a launch. once: each launch once,
// untimed (for compute-sanitizer), returning 1.
inline double time_us(const std::function<void(int)>& f, int sets, int reps, bool once = false) {
  if (once) {
    f(0);
    CK(cudaDeviceSynchronize());
    return 1;
  }
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < sets; ++i) f(i);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int trial = 0; trial < 7; ++trial) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < reps; ++i) f((trial * reps + i) % sets);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3 / reps);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace kc_bench
