// The device unit of the dense family's CUDA controls: each control's kernels and launches (its own
// header), and the launchers their registrations (cuda.cpp) call.
#include "bf16_sum.cuh"
#include "corner_drop.cuh"
#include "dense_controls.hpp"
#include "early_x.cuh"
#include "splitk_reversed.cuh"
#include "tail_drop.cuh"
#include "tc_exact_steps.cuh"

namespace kc::dense_ctl {
using kc::dense_cu::Fault;

void bf16_sum_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream) {
  kc::dense_cu::launch_gemv<float, Fault::bf16_sums>(x, w, y, M, N, K, static_cast<cudaStream_t>(stream));
}
void early_x_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream) {
  kc::dense_cu::launch_gemv<float, Fault::early_x>(x, w, y, M, N, K, static_cast<cudaStream_t>(stream));
}
void tail_drop_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream) {
  kc::dense_cu::launch_gemv<float, Fault::drop_tail>(x, w, y, M, N, K, static_cast<cudaStream_t>(stream));
}
void corner_drop_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream) {
  const dim3 grid(unsigned((N + 7) / 8), unsigned(M));
  kc_ctl_corner_drop<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const uint16_t*>(x), static_cast<const uint16_t*>(w), y, N, K);
}
void tc_exact_steps_launch(const void* x, const void* w, float* y, int M, int N, int K, void* stream) {
  kc::gemm_cu::launch_gemm_cfg<TcExactSteps, float>(x, w, y, M, N, K, static_cast<cudaStream_t>(stream));
}
const kc::dense_cu::GemvUnit<float>& splitk_reversed_unit() { return kc::dense_cu::this_gemv_unit<float>(); }
void splitk_reversed_launch(const void* x, const void* w, float* ws, float* y, int M, int N, int K, void* stream) {
  kc::dense_cu::launch_gemv_splitk<float, Fault::reversed_meet>(x, w, ws, y, M, N, K,
                                                                static_cast<cudaStream_t>(stream));
}

}  // namespace kc::dense_ctl
