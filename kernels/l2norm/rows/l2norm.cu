// The CUDA unit of the L2-norm rows (l2norm.cuh): its launcher and launches, with and without the
// residual, at 1, 2 and 4 vectors a thread.
#include "kc/cuda_launch.hpp"
#include "l2norm.cuh"

void kc::cu::l2norm_rows(const void* x, const void* r, void* h, void* y, int rows, int cols, float eps, void* stream) {
  if (r) launch_l2norm_rows<true, false>(x, r, h, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
  else launch_l2norm_rows<false, false>(x, nullptr, nullptr, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("l2norm/rows/v1", (kc_l2norm_rows<1, false, false>), 256, 0);
KC_CUDA_LAUNCH("l2norm/rows/v2", (kc_l2norm_rows<2, false, false>), 256, 0);
KC_CUDA_LAUNCH("l2norm/rows/v4", (kc_l2norm_rows<4, false, false>), 256, 0);
KC_CUDA_LAUNCH("l2norm/add_rows/v1", (kc_l2norm_rows<1, true, false>), 256, 0);
KC_CUDA_LAUNCH("l2norm/add_rows/v2", (kc_l2norm_rows<2, true, false>), 256, 0);
KC_CUDA_LAUNCH("l2norm/add_rows/v4", (kc_l2norm_rows<4, true, false>), 256, 0);
