// The L2 norm's CUDA control: the served kernel summing squares over the first half of the row.
#include "../../../kernels/l2norm/rows/l2norm.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::l2norm_rows_first_half(const void* x, void* y, int rows, int cols, float eps, void* stream) {
  launch_l2norm_rows<false, true>(x, nullptr, nullptr, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
}

KC_CUDA_LAUNCH("l2norm/ctl_first_half/v1", (kc_l2norm_rows<1, false, true>), 256, 0);
KC_CUDA_LAUNCH("l2norm/ctl_first_half/v2", (kc_l2norm_rows<2, false, true>), 256, 0);
KC_CUDA_LAUNCH("l2norm/ctl_first_half/v4", (kc_l2norm_rows<4, false, true>), 256, 0);
