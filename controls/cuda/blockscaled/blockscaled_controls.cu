// The CUDA unit of the block-scaled family's controls (cuda.cpp registers them): each control's
// device side (bs_fp4_faults.cuh, bs_nan_code_as_number.cuh, bs_neighbour_scale.cuh,
// bs_never_promotes.cuh), one fault compiled in each, and their launches.
#include "bs_fp4_faults.cuh"
#include "bs_nan_code_as_number.cuh"
#include "bs_neighbour_scale.cuh"
#include "bs_never_promotes.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

KC_CUDA_LAUNCH("blockscaled/ctl_nibbles_swapped/mxfp4", (kc_bs_fp4_gemv_fault<8, float, w_mx, f_nibbles_swapped>),
               kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/ctl_e8m0_off/mxfp4", (kc_bs_fp4_gemv_fault<8, float, w_mx, f_e8m0_off>), kThreads, 0, 1,
               "-");
KC_CUDA_LAUNCH("blockscaled/ctl_nan_code_as_number/fp8_tensor",
               (kc_bs_fp8_gemv<8, float, w_tensor, a_bf16, f_nan_code_as_number>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/ctl_neighbour_scale/fp8_block128",
               (kc_bs_fp8_gemv<8, float, w_block128, a_bf16, f_neighbour_scale>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/ctl_never_promotes/fp8_tensor", (KC_NEVER_PROMOTES), kc::fp8gemm::kThreads,
               kc::fp8gemm::kSmemBytes, 1, "optin,only=90");
