// The FP8 wgmma GEMM's never-promotes control's device side (cuda.cpp registers it): the served
// kernel (kernels/blockscaled/fp8_gemm/fp8_gemm_sm90a.cuh) with every step's wgmma accumulating into
// one tensor-core sum over the whole of K, per-tensor scales, bf16 out. The declarations are plain
// C++, for the registration; the definitions below the device guard are compiled once, in
// blockscaled_controls.cu, which holds the kernel's one copy and its launch.
#pragma once
#include "../../../kernels/blockscaled/fp8_gemm/fp8_gemm_sm90a.cuh"

namespace kc::fp8gemm {
// Whether that unit's loaded image holds the wgmma body (kc::gemm90::image_has_wgmma), the kernel's
// opt-in to its dynamic shared memory, and its launch on the harness's stream.
bool ctl_never_promotes_here();
cudaError_t ctl_never_promotes_prepare();
void ctl_never_promotes(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y, int M, int N,
                        int K, void* stream);
}  // namespace kc::fp8gemm

#if defined(__CUDACC__) || defined(__HIP__)
#define KC_NEVER_PROMOTES \
  kc_fp8_gemm_wgmma<kc::bs_cu::w_tensor, kc::bs_cu::a_fp8_tensor, __nv_bfloat16, kc::fp8gemm::f_never_promote>

bool kc::fp8gemm::ctl_never_promotes_here() { return kc::gemm90::image_has_wgmma(); }
cudaError_t kc::fp8gemm::ctl_never_promotes_prepare() {
  return cudaFuncSetAttribute(KC_NEVER_PROMOTES, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
}
void kc::fp8gemm::ctl_never_promotes(const uint8_t* xq, const float* sx, const uint8_t* q, const float* s, void* y,
                                     int M, int N, int K, void* stream) {
  KC_NEVER_PROMOTES<<<unsigned((M + 127) / 128) * unsigned((N + 127) / 128), kThreads, kSmemBytes,
                      static_cast<cudaStream_t>(stream)>>>(xq, sx, q, s, static_cast<__nv_bfloat16*>(y), M, N, K);
}
#endif
