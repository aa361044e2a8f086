// A CUDA unit of the served FP8 GEMV (../bs_gemv.cuh): weights with a per-tensor scale, bf16 or FP8
// activations (fp8_tensor/*): the launchers its contract (cuda.cpp) calls, and their launches. One
// unit a weight form, so nvcc builds the three side by side.
#include "../bs_gemv.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

namespace kc::bs_cu {
template void served_fp8_gemv<w_tensor, a_bf16>(const void*, const float*, const uint8_t*, const float*, void*,
                                                int, int, int, void*);
template void served_fp8_gemv<w_tensor, a_fp8_tensor>(const void*, const float*, const uint8_t*, const float*, void*,
                                                      int, int, int, void*);
}  // namespace kc::bs_cu

KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_bf16/m8",
               (kc_bs_fp8_gemv<8, __nv_bfloat16, w_tensor, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_bf16/m16",
               (kc_bs_fp8_gemv<16, __nv_bfloat16, w_tensor, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_bf16/m32",
               (kc_bs_fp8_gemv<32, __nv_bfloat16, w_tensor, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_fp8/m8",
               (kc_bs_fp8_gemv<8, __nv_bfloat16, w_tensor, a_fp8_tensor>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_fp8/m16",
               (kc_bs_fp8_gemv<16, __nv_bfloat16, w_tensor, a_fp8_tensor>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_tensor/a_fp8/m32",
               (kc_bs_fp8_gemv<32, __nv_bfloat16, w_tensor, a_fp8_tensor>), kThreads, 0, 1, "-");
