// The CUDA unit of the RMS norm rows (rms_norm.cuh): the launchers its contracts (cuda.cpp) call, and
// their launches.
#include "rms_norm.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::cu;

void kc::cu::rms_norm_bf16_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream) {
  launch_rms_norm_vec(x, w, static_cast<Bf16Out*>(y), rows, cols, eps, static_cast<cudaStream_t>(stream));
}
void kc::cu::rms_norm_f16_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream) {
  launch_rms_norm_vec(x, w, static_cast<F16Out*>(y), rows, cols, eps, static_cast<cudaStream_t>(stream));
}
void kc::cu::rms_norm_f32_out(const void* x, const void* w, void* y, int rows, int cols, float eps, void* stream) {
  launch_rms_norm_vec(x, w, static_cast<float*>(y), rows, cols, eps, static_cast<cudaStream_t>(stream));
}
void kc::cu::rms_norm_tree_f32(const void* x, const void* w, float* y, int rows, int cols, float eps, void* stream) {
  launch_rms_norm_tree(x, w, y, rows, cols, eps, static_cast<cudaStream_t>(stream));
}

// frame=8 on the v4 forms: nvcc 13.0 gives them an 8-byte stack frame on sm_100 only (0 elsewhere);
// frame=16 on f32_out/v4: its paired fp32 store (store8_f32_pair) gets a 16-byte frame on sm_120/121
// only (0 on sm_80-100; seen with ptxas -v, nvcc 13.0). Gate 5 reports any frame above these budgets.
KC_CUDA_LAUNCH("rows/rms_norm/bf16_out/v1", (kc_rms_norm_vec<Bf16Out, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/bf16_out/v2", (kc_rms_norm_vec<Bf16Out, 2>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/bf16_out/v4", (kc_rms_norm_vec<Bf16Out, 4>), 256, 0, 1, "frame=8");
KC_CUDA_LAUNCH("rows/rms_norm/bf16_out/v8", (kc_rms_norm_vec<Bf16Out, 8>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f16_out/v1", (kc_rms_norm_vec<F16Out, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f16_out/v2", (kc_rms_norm_vec<F16Out, 2>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f16_out/v4", (kc_rms_norm_vec<F16Out, 4>), 256, 0, 1, "frame=8");
KC_CUDA_LAUNCH("rows/rms_norm/f16_out/v8", (kc_rms_norm_vec<F16Out, 8>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f32_out/v1", (kc_rms_norm_vec<float, 1>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f32_out/v2", (kc_rms_norm_vec<float, 2>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/f32_out/v4", (kc_rms_norm_vec<float, 4>), 256, 0, 1, "frame=16");
KC_CUDA_LAUNCH("rows/rms_norm/f32_out/v8", (kc_rms_norm_vec<float, 8>), 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/v1", kc_rms_norm_tree_vec<1>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/v2", kc_rms_norm_tree_vec<2>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/v4", kc_rms_norm_tree_vec<4>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/v8", kc_rms_norm_tree_vec<8>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/r16", kc_rms_norm_tree<16>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/r32", kc_rms_norm_tree<32>, 256, 0);
KC_CUDA_LAUNCH("rows/rms_norm/tree_f32/r64", kc_rms_norm_tree<64>, 256, 0);
