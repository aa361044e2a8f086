// The body of qmm's device units (qmm_b2_b3.cu, qmm_b4_b5.cu, qmm_b6_b8.cu: a unit of all 18 widths
// and groups was the build's third slowest, cut so that its parts build side by side): QmmUnit's
// definitions, over this unit's kernels, and the launches of a width and group. A unit instantiates
// QmmUnit and declares the launches of each of its widths and groups with KC_QMM_WS or KC_QMM_2WG.
#pragma once
#include "kc/cuda_launch.hpp"
#include "qmm.cuh"
#include "qmm_sm90a.cuh"
#include "qmm_ws_sm90a.cuh"

namespace kc::qmm_cu {

namespace {
// Does this unit's loaded image hold the wgmma tiles? Decided once a unit.
bool unit_wgmma() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}
}  // namespace

template <int BITS, int GROUP> bool QmmUnit<BITS, GROUP>::wgmma() { return unit_wgmma(); }
template <int BITS, int GROUP> cudaError_t QmmUnit<BITS, GROUP>::prepare_wgmma() {
  if constexpr (kWarpSpecialized<BITS, GROUP>) return kc::qmmws::prepare<BITS, GROUP, __nv_bfloat16>();
  else return kc::qmm90::prepare<BITS, GROUP, __nv_bfloat16>();
}
template <int BITS, int GROUP>
void QmmUnit<BITS, GROUP>::launch(const void* x, const void* q, const void* s, const void* b, float* xs, void* y, int M,
                                  int N, int K, void* stream) {
  launch_qmm<BITS, GROUP, __nv_bfloat16>(x, q, s, b, xs, static_cast<__nv_bfloat16*>(y), M, N, K,
                                         static_cast<cudaStream_t>(stream));
}
template <int BITS, int GROUP>
void QmmUnit<BITS, GROUP>::launch_wgmma(const void* x, const void* q, const void* s, const void* b, float* xs, void* y,
                                        int M, int N, int K, void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  auto* yy = static_cast<__nv_bfloat16*>(y);
  launch_xsum(x, xs, M, K, st);
  if constexpr (kWarpSpecialized<BITS, GROUP>)
    kc::qmmws::launch<BITS, GROUP, __nv_bfloat16>(x, q, s, b, xs, yy, M, N, K, st);
  else
    kc::qmm90::launch<BITS, GROUP, __nv_bfloat16>(x, q, s, b, xs, yy, M, N, K, st);
}

}  // namespace kc::qmm_cu

// A width and group: its exports, and its launches (gate 5's launch rows derive from these): the mma.sync tile, the
// pre-pass, and the wgmma tile, warp-specialized (384 threads) or of two warpgroups (256).
#define KC_QMM(B, G)                                                                                         \
  template struct kc::qmm_cu::QmmUnit<B, G>;                                                                 \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile", (kc_affine_qmm<B, G, __nv_bfloat16>), 256, 0, 1, "-");   \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/xsum", kc_affine_xsum, 256, 0, 1, "-");
#define KC_QMM_WS(B, G)                                                                                      \
  static_assert(kc::qmm_cu::kWarpSpecialized<B, G>);                                                         \
  KC_QMM(B, G)                                                                                               \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile_wgmma", (kc_affine_qmm_ws<B, G, __nv_bfloat16>), 384,      \
                 kc::qmmws::smem_bytes<B>(), 1, "optin,only=90");
#define KC_QMM_2WG(B, G)                                                                                     \
  static_assert(!kc::qmm_cu::kWarpSpecialized<B, G>);                                                        \
  KC_QMM(B, G)                                                                                               \
  KC_CUDA_LAUNCH("affine/qmm/b" #B "_g" #G "/tile_wgmma", (kc_affine_qmm_wgmma<B, G, __nv_bfloat16>), 256,   \
                 kc::qmm90::smem_bytes<B>(), 1, "optin,only=90");
