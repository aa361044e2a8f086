// The CUDA unit of the softmax rows (softmax.cuh): the launchers its contracts (cuda.cpp) call, and
// their launches.
#include "softmax.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::softmax_bf16(const void* x, void* y, int rows, int cols, void* stream) {
  launch_softmax_vec(x, y, rows, cols, static_cast<cudaStream_t>(stream));
}
void kc::cu::softmax_bf16_long(const void* x, void* y, int rows, int cols, void* stream) {
  launch_softmax_long(x, y, rows, cols, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/softmax/bf16/v1", (kc_softmax_vec<1>), 256, 0);
KC_CUDA_LAUNCH("rows/softmax/bf16/v2", (kc_softmax_vec<2>), 256, 0);
KC_CUDA_LAUNCH("rows/softmax/bf16/v4", (kc_softmax_vec<4>), 256, 0);
KC_CUDA_LAUNCH("rows/softmax/bf16/v8", (kc_softmax_vec<8>), 256, 0);
KC_CUDA_LAUNCH("rows/softmax/bf16_long", kc_softmax_online, 256, 0);
