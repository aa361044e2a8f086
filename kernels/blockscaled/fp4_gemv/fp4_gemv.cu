// The CUDA unit of the served FP4 GEMV (../bs_gemv.cuh): the launchers its contract (cuda.cpp)
// calls, MXFP4 and NVFP4, and their launches.
#include "../bs_gemv.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

namespace kc::bs_cu {
template void served_fp4_gemv<w_mx>(const uint16_t*, const uint8_t*, const uint8_t*, const float*, void*, int, int, int,
                                    void*);
template void served_fp4_gemv<w_nv>(const uint16_t*, const uint8_t*, const uint8_t*, const float*, void*, int, int, int,
                                    void*);
}  // namespace kc::bs_cu

KC_CUDA_LAUNCH("blockscaled/fp4_gemv/mxfp4/a_bf16/m8", (kc_bs_fp4_gemv<8, __nv_bfloat16, w_mx>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp4_gemv/mxfp4/a_bf16/m16", (kc_bs_fp4_gemv<16, __nv_bfloat16, w_mx>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp4_gemv/mxfp4/a_bf16/m32", (kc_bs_fp4_gemv<32, __nv_bfloat16, w_mx>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp4_gemv/nvfp4/a_bf16/m8", (kc_bs_fp4_gemv<8, __nv_bfloat16, w_nv>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp4_gemv/nvfp4/a_bf16/m16", (kc_bs_fp4_gemv<16, __nv_bfloat16, w_nv>), kThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp4_gemv/nvfp4/a_bf16/m32", (kc_bs_fp4_gemv<32, __nv_bfloat16, w_nv>), kThreads, 0, 1, "-");
