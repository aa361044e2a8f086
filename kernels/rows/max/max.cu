// The CUDA unit of the row max (max.cuh): the launcher its contract (cuda.cpp) calls, and its launch.
#include "max.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::row_max_bf16(const void* x, void* y, int rows, int cols, void* stream) {
  launch_row_max(x, y, rows, cols, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/max/bf16", kc_row_max, 256, 0);
