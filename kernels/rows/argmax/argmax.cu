// The CUDA unit of the row argmax (argmax.cuh): the launcher its contract (cuda.cpp) calls, and its
// launch.
#include "argmax.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::row_argmax_bf16(const void* x, int32_t* id, int rows, int cols, void* stream) {
  launch_row_argmax(x, id, rows, cols, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/argmax/bf16", kc_row_argmax, 256, 0);
