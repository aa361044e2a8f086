// The CUDA unit of the FP8 prompt projection: both kernels (fp8_gemm_sm90a.cuh's wgmma form,
// fp8_gemm.cuh's CUDA-core form) at each served scale form, the launchers the contract (cuda.cpp)
// calls, and their launches. Whether the wgmma form runs is this unit's question:
// kc::gemm90::image_has_wgmma reads the image the driver loaded of the unit it is in.
#include "fp8_gemm.cuh"
#include "fp8_gemm_sm90a.cuh"
#include "kc/cuda_launch.hpp"

using namespace kc::bs_cu;

namespace kc::fp8gemm {
bool wgmma_here() { return kc::gemm90::image_has_wgmma(); }

template cudaError_t prepare_wgmma<w_tensor, a_fp8_tensor>();
template void served_wgmma<w_tensor, a_fp8_tensor>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                   int, int, int, void*);
template void served_simt<w_tensor, a_fp8_tensor>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                  int, int, int, void*);
template cudaError_t prepare_wgmma<w_channel, a_fp8_tensor>();
template void served_wgmma<w_channel, a_fp8_tensor>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                    int, int, int, void*);
template void served_simt<w_channel, a_fp8_tensor>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                   int, int, int, void*);
template cudaError_t prepare_wgmma<w_block128, a_fp8_group>();
template void served_wgmma<w_block128, a_fp8_group>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                    int, int, int, void*);
template void served_simt<w_block128, a_fp8_group>(const uint8_t*, const float*, const uint8_t*, const float*, void*,
                                                   int, int, int, void*);
}  // namespace kc::fp8gemm

KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_tensor/a_fp8/wgmma",
               (kc_fp8_gemm_wgmma<w_tensor, a_fp8_tensor, __nv_bfloat16>), kc::fp8gemm::kThreads,
               kc::fp8gemm::kSmemBytes, 1, "optin,only=90");
KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_tensor/a_fp8/cuda_cores",
               (kc_fp8_gemm_simt<w_tensor, a_fp8_tensor, __nv_bfloat16>), kc::fp8gemm::kPThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_channel/a_fp8/wgmma",
               (kc_fp8_gemm_wgmma<w_channel, a_fp8_tensor, __nv_bfloat16>), kc::fp8gemm::kThreads,
               kc::fp8gemm::kSmemBytes, 1, "optin,only=90");
KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_channel/a_fp8/cuda_cores",
               (kc_fp8_gemm_simt<w_channel, a_fp8_tensor, __nv_bfloat16>), kc::fp8gemm::kPThreads, 0, 1, "-");
KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_block128/a_fp8_g128/wgmma",
               (kc_fp8_gemm_wgmma<w_block128, a_fp8_group, __nv_bfloat16>), kc::fp8gemm::kThreads,
               kc::fp8gemm::kSmemBytes, 1, "optin,only=90");
KC_CUDA_LAUNCH("blockscaled/fp8_gemm/fp8_block128/a_fp8_g128/cuda_cores",
               (kc_fp8_gemm_simt<w_block128, a_fp8_group, __nv_bfloat16>), kc::fp8gemm::kPThreads, 0, 1, "-");
