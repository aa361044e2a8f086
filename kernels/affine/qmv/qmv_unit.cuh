// The body of qmv's device units (qmv_b2.cu ... qmv_b8.cu, one a bit width: the widest template unit
// of the build, cut so that its parts build side by side): QmvUnit's definitions, over this unit's
// kernels, and the launches of a width and group. A unit instantiates QmvUnit and declares the
// launches of each of its groups with KC_QMV (and KC_QMV_BULK where the bulk-copy form serves).
#pragma once
#include "kc/cuda_launch.hpp"
#include "qmv.cuh"

namespace kc::affine_cu {

template <int BITS, int GROUP> bool QmvUnit<BITS, GROUP>::bulk_used() {
  return qmv_bulk_has<BITS, GROUP>() && qmv_bulk_used();
}
template <int BITS, int GROUP> bool QmvUnit<BITS, GROUP>::bulk(int M, int K) { return qmv_bulk<BITS, GROUP>(M, K); }
template <int BITS, int GROUP> double QmvUnit<BITS, GROUP>::depth(long M, long K) {
  return qmv_depth_at<BITS, GROUP>(M, K);
}
template <int BITS, int GROUP> void QmvUnit<BITS, GROUP>::prepare() { qmv_prepare<BITS, GROUP, __nv_bfloat16>(); }
template <int BITS, int GROUP>
void QmvUnit<BITS, GROUP>::launch(const void* x, const void* q, const void* s, const void* b, void* y, int M, int N,
                                  int K, void* stream) {
  launch_qmv<BITS, GROUP, __nv_bfloat16>(x, q, s, b, static_cast<__nv_bfloat16*>(y), M, N, K,
                                         static_cast<cudaStream_t>(stream));
}

}  // namespace kc::affine_cu

// A width and group: its exports and its launches, the mma.sync kernel at 8, 16 and 32 x rows
// (gate 5's launch rows derive from these).
#define KC_QMV(B, G)                                                                                        \
  template struct kc::affine_cu::QmvUnit<B, G>;                                                             \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m8", (kc_affine_qmv<B, G, 1, __nv_bfloat16>), 256, 0, 1, "-");  \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m16", (kc_affine_qmv<B, G, 2, __nv_bfloat16>), 256, 0, 1, "-"); \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/m32", (kc_affine_qmv<B, G, 4, __nv_bfloat16>), 256, 0, 1, "-");

// The bulk-copy form (sm_90a only): at one x row and at 2..8.
#define KC_QMV_BULK(B, G)                                                                                   \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/bulk_m1", (kc_qmv90<B, G, true, __nv_bfloat16>),                 \
                 kc::qmv90::kThreads, kc::qmv90::kSmemMax, 1, "optin,only=90");                             \
  KC_CUDA_LAUNCH("affine/qmv/b" #B "_g" #G "/bulk_m8", (kc_qmv90<B, G, false, __nv_bfloat16>),                \
                 kc::qmv90::kThreads, kc::qmv90::kSmemMax, 1, "optin,only=90");
