// The device unit of the affine family's CUDA controls: each control's kernels and launches (its own
// header, <control>.cuh), and the launchers their registrations (cuda.cpp) call.
#include "affine_controls.hpp"
#include "first_scale.cuh"
#include "fold_scale.cuh"
#include "reversed_nibbles.cuh"

namespace kc::affine_ctl {
using kc::affine_cu::Fault;

void first_scale_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                        void* stream) {
  kc::affine_cu::launch_qmv<4, 64, float, Fault::first_scale>(x, q, s, b, y, M, N, K,
                                                              static_cast<cudaStream_t>(stream));
}
void fold_scale_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                       void* stream) {
  kc::affine_cu::launch_qmv<4, 64, float, Fault::fold_scale>(x, q, s, b, y, M, N, K,
                                                             static_cast<cudaStream_t>(stream));
}
void reversed_nibbles_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                             void* stream) {
  kc::affine_cu::launch_qmv<4, 64, float, Fault::reversed_code>(x, q, s, b, y, M, N, K,
                                                                static_cast<cudaStream_t>(stream));
}

}  // namespace kc::affine_ctl
