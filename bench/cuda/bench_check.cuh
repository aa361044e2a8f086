// The checks every standalone CUDA benchmark makes: a failed CUDA or cuBLAS call names itself, its
// file and line, and ends the run (a benchmark that went on would time garbage).
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
