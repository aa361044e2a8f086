// A CUDA unit of the served FP8 GEMV (../bs_gemv.cuh): weights with per-channel scales, bf16
// activations (fp8_channel/*): the launcher its contract (cuda.cpp) calls, and its launches. One
// unit a weight form, so nvcc builds the three side by side.
#include "../bs_gemv.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

namespace kc::bs_cu {
template void served_fp8_gemv<w_channel, a_bf16>(const void*, const float*, const uint8_t*, const float*, void*,
                                                 int, int, int, void*);
}  // namespace kc::bs_cu

KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_channel/a_bf16/m8",
               (kc_bs_fp8_gemv<8, __nv_bfloat16, w_channel, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_channel/a_bf16/m16",
               (kc_bs_fp8_gemv<16, __nv_bfloat16, w_channel, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_channel/a_bf16/m32",
               (kc_bs_fp8_gemv<32, __nv_bfloat16, w_channel, a_bf16>), kThreads, 0, 1, "-");
