// bench_dense.cu's KC_QMV_TRIAL hook for the wgmma trial (qmv_wgmma.cuh).
#pragma once
#include "qmv_wgmma.cuh"
namespace kc::affine_trial {
template <int B, int G, class Out>
inline void launch_qmv(const void* x, const void* q, const void* s, const void* b, Out* y, int M, int N, int K,
                       cudaStream_t st) {
  kc::qmv90::launch<B, G, Out>(x, q, s, b, y, M, N, K, st);
}
}  // namespace kc::affine_trial
