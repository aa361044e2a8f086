// The device unit of the split-K decode projection (gemv.cuh's split-K form): the table and split-K
// launcher its registration (cuda.cpp) calls, with this unit's own copy of the GEMV it replaces (the
// wgmma form's kernels are opted in and launched per unit: GemvUnit), and its launches.
#include "../gemv/gemv.cuh"
#include "kc/cuda_launch.hpp"

namespace kc::dense_cu {
template <class Out> const GemvUnit<Out>& gemv_splitk_unit() { return this_gemv_unit<Out>(); }
template <class Out>
void gemv_splitk_launch(const void* x, const void* w, float* ws, Out* y, int M, int N, int K, void* stream) {
  launch_gemv_splitk<Out>(x, w, ws, y, M, N, K, static_cast<cudaStream_t>(stream));
}
template const GemvUnit<__nv_bfloat16>& gemv_splitk_unit<__nv_bfloat16>();
template const GemvUnit<float>& gemv_splitk_unit<float>();
template void gemv_splitk_launch<__nv_bfloat16>(const void*, const void*, float*, __nv_bfloat16*, int, int, int, void*);
template void gemv_splitk_launch<float>(const void*, const void*, float*, float*, int, int, int, void*);
}  // namespace kc::dense_cu

using namespace kc::dense_cu;

// Launch records (one an instantiation the launcher picks by rows; gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/meet", (kc_gemv_bf16_meet<__nv_bfloat16, Fault::none>), 256, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m8", (kc_gemv_bf16_slices<1, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m16", (kc_gemv_bf16_slices<2, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/slices_m32", (kc_gemv_bf16_slices<4, 1>), 32, 0, 1, "-");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/meet", (kc_gemv_bf16_meet<float, Fault::none>), 256, 0, 1, "-");
#if defined(__CUDACC__)
// The wgmma form's parts (sm_90a only), one an x width; the output type is the meeting's.
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<8>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<16>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemv_splitk/bf16/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<32>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m8", (kc_gemv90_parts<8>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<8>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m16", (kc_gemv90_parts<16>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<16>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemv_splitk/f32/wgmma_parts_m32", (kc_gemv90_parts<32>), kc::gemv90::kThreads,
               kc::gemv90::smem_bytes<32>(), 1, "optin,only=90");
#endif
