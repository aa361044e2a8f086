// The CUDA unit of the row dot (dot.cuh): the launcher its contract (cuda.cpp) calls, and its launches.
#include "dot.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::row_dot_f32(const void* x, const void* w, float* y, int rows, int cols, void* stream) {
  launch_row_dot(x, w, y, rows, cols, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/dot/f32", (kc_row_dot<1>), 256, 0);
KC_CUDA_LAUNCH("rows/dot/f32/r2", (kc_row_dot<2>), 256, 0);
