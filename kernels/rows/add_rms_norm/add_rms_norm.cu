// The CUDA unit of the residual add + RMS norm rows (add_rms_norm.cuh): the launchers its contracts
// (cuda.cpp) call, and their launches.
#include "add_rms_norm.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::add_rms_norm_rounded(const void* x, const void* r, const void* w, void* h, void* y, int rows, int cols,
                                  float eps, void* stream) {
  launch_add_rms_norm<false>(x, r, w, h, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
}
void kc::cu::add_rms_norm_once_rounded(const void* x, const void* r, const void* w, void* h, void* y, int rows,
                                       int cols, float eps, void* stream) {
  launch_add_rms_norm<true>(x, r, w, h, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("rows/add_rms_norm/rounded/v1", (kc_add_rms_norm<false, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/rounded/v2", (kc_add_rms_norm<false, 2>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/rounded/v4", (kc_add_rms_norm<false, 4>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/rounded/v8", (kc_add_rms_norm<false, 8>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/once_rounded/v1", (kc_add_rms_norm<true, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/once_rounded/v2", (kc_add_rms_norm<true, 2>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/once_rounded/v4", (kc_add_rms_norm<true, 4>), 256, 0);
KC_CUDA_LAUNCH("rows/add_rms_norm/once_rounded/v8", (kc_add_rms_norm<true, 8>), 256, 0);
