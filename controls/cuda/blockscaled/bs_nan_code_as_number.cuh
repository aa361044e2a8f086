// The FP8 GEMV's NaN-code control's device side (cuda.cpp registers it): the served FP8 kernel
// (kernels/blockscaled/bs_gemv.cuh) reading e4m3's NaN codes as +-480, per-tensor weights, bf16
// activations, 8 rows, fp32 out. The declaration is plain C++, for the registration; the definition
// below the device guard is compiled once, in blockscaled_controls.cu, which holds the kernel's one
// copy and its launch.
#pragma once
#include "../../../kernels/blockscaled/bs_gemv.cuh"

namespace kc::bs_cu {
// Its launch on the harness's stream.
void ctl_fp8_nan_code_as_number(const void* x, const uint8_t* q, const float* s, float* y, int M, int N, int K,
                                void* stream);
}  // namespace kc::bs_cu

#if defined(__CUDACC__) || defined(__HIP__)
void kc::bs_cu::ctl_fp8_nan_code_as_number(const void* x, const uint8_t* q, const float* s, float* y, int M, int N,
                                           int K, void* stream) {
  const unsigned blocks = unsigned((N + kWarps - 1) / kWarps);
  kc_bs_fp8_gemv<8, float, w_tensor, a_bf16, f_nan_code_as_number>
      <<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(x, nullptr, q, s, y, M, N, K);
}
#endif
