// The CUDA unit of the row sum (sum.cuh): the launcher its contract (cuda.cpp) calls, and its launch.
#include "sum.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::row_sum_f32(const void* x, float* y, int rows, int cols, void* stream) {
  launch_row_sum(x, y, rows, cols, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/sum/f32", kc_row_sum, 256, 0);
