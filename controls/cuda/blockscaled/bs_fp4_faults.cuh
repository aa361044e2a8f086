// The MXFP4 GEMV's decode-fault controls' device side (cuda.cpp registers them): the served FP4 body
// (kernels/blockscaled/bs_gemv.cuh's fp4_gemv) with one fault compiled in, 8 rows, fp32 out. The
// declaration is plain C++, for the registration; the definition below the device guard is compiled
// once, in blockscaled_controls.cu, which holds the kernels' one copy and their launches.
#pragma once
#include "../../../kernels/blockscaled/bs_gemv.cuh"

namespace kc::bs_cu {
// Fault f's kernel (f_nibbles_swapped or f_e8m0_off) over MXFP4 weights, on the harness's stream.
void ctl_fp4_gemv_fault(Fault f, const uint16_t* x, const uint8_t* q, const uint8_t* s, float* y, int M, int N, int K,
                        void* stream);
}  // namespace kc::bs_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <stdexcept>
#include <string>

void kc::bs_cu::ctl_fp4_gemv_fault(Fault f, const uint16_t* x, const uint8_t* q, const uint8_t* s, float* y, int M,
                                   int N, int K, void* stream) {
  const unsigned blocks = unsigned((N + kWarps - 1) / kWarps);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  switch (f) {
    case f_nibbles_swapped:
      kc_bs_fp4_gemv_fault<8, float, w_mx, f_nibbles_swapped>
          <<<blocks, kThreads, 0, st>>>(x, q, s, nullptr, y, M, N, K);
      break;
    case f_e8m0_off:
      kc_bs_fp4_gemv_fault<8, float, w_mx, f_e8m0_off><<<blocks, kThreads, 0, st>>>(x, q, s, nullptr, y, M, N, K);
      break;
    default: throw std::runtime_error("blockscaled controls: no FP4 GEMV with fault " + std::to_string(int(f)));
  }
}
#endif
