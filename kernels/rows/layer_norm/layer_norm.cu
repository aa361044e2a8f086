// The CUDA unit of the layer norm rows (layer_norm.cuh): the launchers its contracts (cuda.cpp) call,
// and their launches.
#include "layer_norm.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::cu;

void kc::cu::layer_norm_bf16(const void* x, const void* w, const void* b, void* y, float* mean, float* rstd, int rows,
                             int cols, float eps, void* stream) {
  launch_layer_norm<false, Bf16Out>(x, w, b, static_cast<Bf16Out*>(y), mean, rstd, rows, cols, eps,
                                    static_cast<cudaStream_t>(stream));
}
void kc::cu::layer_norm_f32(const void* x, const void* w, const void* b, void* y, float* mean, float* rstd, int rows,
                            int cols, float eps, void* stream) {
  launch_layer_norm<true, float>(x, w, b, static_cast<float*>(y), mean, rstd, rows, cols, eps,
                                 static_cast<cudaStream_t>(stream));
}

// frame=160 on bf16/v8: nvcc 13.0 gives it a 128-byte stack frame on sm_100 and 160 on sm_120/121
// (0 on sm_80-90, where the H200 measured it); gate 5 found it and reports any frame above this.
KC_CUDA_LAUNCH("rows/layer_norm/bf16/v1", (kc_layer_norm_vec<false, Bf16Out, 1, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/bf16/v2", (kc_layer_norm_vec<false, Bf16Out, 2, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/bf16/v4", (kc_layer_norm_vec<false, Bf16Out, 4, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/bf16/v8", (kc_layer_norm_vec<false, Bf16Out, 8, false>), 256, 0, 1, "frame=160");
KC_CUDA_LAUNCH("rows/layer_norm/f32/v1", (kc_layer_norm_vec<true, float, 1, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/f32/v2", (kc_layer_norm_vec<true, float, 2, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/f32/v4", (kc_layer_norm_vec<true, float, 4, false>), 256, 0);
KC_CUDA_LAUNCH("rows/layer_norm/f32/v8", (kc_layer_norm_vec<true, float, 8, false>), 256, 0);
