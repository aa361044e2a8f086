// A CUDA unit of the served FP8 GEMV (../bs_gemv.cuh): weights in 128 x 128 scale blocks, bf16
// activations or FP8 ones in 128-column groups (fp8_block128/*): the launchers its contract
// (cuda.cpp) calls, and their launches. One unit a weight form, so nvcc builds the three side by
// side.
#include "../bs_gemv.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

namespace kc::bs_cu {
template void served_fp8_gemv<w_block128, a_bf16>(const void*, const float*, const uint8_t*, const float*, void*,
                                                  int, int, int, void*);
template void served_fp8_gemv<w_block128, a_fp8_group>(const void*, const float*, const uint8_t*, const float*, void*,
                                                       int, int, int, void*);
}  // namespace kc::bs_cu

KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_bf16/m8",
               (kc_bs_fp8_gemv<8, __nv_bfloat16, w_block128, a_bf16>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_bf16/m16",
               (kc_bs_fp8_gemv<16, __nv_bfloat16, w_block128, a_bf16>), kThreads, 0, 1, "-");
// frame=8: ptxas 13.0 keeps 8 bytes of stack here on sm_89 alone (the hardware e4m3 decode's registers).
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_bf16/m32",
               (kc_bs_fp8_gemv<32, __nv_bfloat16, w_block128, a_bf16>), kThreads, 0, 1, "frame=8");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_fp8_g128/m8",
               (kc_bs_fp8_gemv<8, __nv_bfloat16, w_block128, a_fp8_group>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_fp8_g128/m16",
               (kc_bs_fp8_gemv<16, __nv_bfloat16, w_block128, a_fp8_group>), kThreads, 0, 1, "-");
// frame=8: ptxas 13.0 keeps 8 bytes of stack here on sm_80 alone (80 registers, no spill of the sums).
KC_CUDA_LAUNCH("blockscaled/fp8_gemv/fp8_block128/a_fp8_g128/m32",
               (kc_bs_fp8_gemv<32, __nv_bfloat16, w_block128, a_fp8_group>), kThreads, 0, 1, "frame=8");
