// The CUDA unit of the bf16 top-k rows (topk.cuh): the launcher its contracts (cuda.cpp) call, and
// their launches (k = 8 and k = 64 run the same kernels).
#include "topk.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::topk_bf16(const void* x, int32_t* ids, void* vals, int rows, int cols, int k, void* stream) {
  launch_topk_bf16(x, ids, vals, rows, cols, k, static_cast<cudaStream_t>(stream));
}

// frame=16 on the v2 and v8 forms: nvcc 13.0 gives v2 a 16-byte stack frame on sm_120/121 and v8 on
// sm_80/86/89 (0 elsewhere); gate 5 reports any frame above this budget.
KC_CUDA_LAUNCH("rows/topk/bf16_k8/v1", (kc_topk_bf16<1>), 256, 0);
KC_CUDA_LAUNCH("rows/topk/bf16_k8/v2", (kc_topk_bf16<2>), 256, 0, 1, "frame=16");
KC_CUDA_LAUNCH("rows/topk/bf16_k8/v4", (kc_topk_bf16<4>), 256, 0);
KC_CUDA_LAUNCH("rows/topk/bf16_k8/v8", (kc_topk_bf16<8>), 256, 0, 1, "frame=16");
KC_CUDA_LAUNCH("rows/topk/bf16_k64/v1", (kc_topk_bf16<1>), 256, 0);
KC_CUDA_LAUNCH("rows/topk/bf16_k64/v2", (kc_topk_bf16<2>), 256, 0, 1, "frame=16");
KC_CUDA_LAUNCH("rows/topk/bf16_k64/v4", (kc_topk_bf16<4>), 256, 0);
KC_CUDA_LAUNCH("rows/topk/bf16_k64/v8", (kc_topk_bf16<8>), 256, 0, 1, "frame=16");
