// The device unit of the prompt GEMM (gemm.cuh, gemm_sm90a.cuh): the launchers its registration
// (cuda.cpp) calls, and its launches.
#include "gemm.cuh"
#include "gemm_sm90a.cuh"
#include "kc/cuda_launch.hpp"

namespace kc::gemm_cu {

bool gemm_wgmma() {
  static const bool yes = kc::gemm90::image_has_wgmma();
  return yes;
}
int gemm_wgmma_tile_n(int M, int N) { return kc::gemm90::tile_n(M, N); }
template <class Out> cudaError_t gemm_prepare() {
  return gemm_wgmma() ? kc::gemm90::prepare<Out>() : prepare_gemm<Out>();
}
template <class Out> void gemm_launch(const void* x, const void* w, Out* y, int M, int N, int K, void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  if (gemm_wgmma()) kc::gemm90::launch<Out>(x, w, y, M, N, K, st);
  else launch_gemm<Out>(x, w, y, M, N, K, st);
}
template cudaError_t gemm_prepare<__nv_bfloat16>();
template cudaError_t gemm_prepare<float>();
template void gemm_launch<__nv_bfloat16>(const void*, const void*, __nv_bfloat16*, int, int, int, void*);
template void gemm_launch<float>(const void*, const void*, float*, int, int, int, void*);

}  // namespace kc::gemm_cu

using namespace kc::gemm_cu;

// Launch records (gate 5's launch rows derive from them).
KC_CUDA_LAUNCH("dense/gemm/bf16", (kc_gemm_mma<Main, __nv_bfloat16>), Main::kThreads, kSmemBytes, 1, "optin");
KC_CUDA_LAUNCH("dense/gemm/f32", (kc_gemm_mma<Main, float>), Main::kThreads, kSmemBytes, 1, "optin");
KC_CUDA_LAUNCH("dense/gemm/bf16_wgmma", (kc_gemm_wgmma<256, __nv_bfloat16>), kc::gemm90::kThreads,
               kc::gemm90::smem_bytes<256>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemm/f32_wgmma", (kc_gemm_wgmma<256, float>), kc::gemm90::kThreads, kc::gemm90::smem_bytes<256>(),
               1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemm/bf16_wgmma128", (kc_gemm_wgmma<128, __nv_bfloat16>), kc::gemm90::kThreads,
               kc::gemm90::smem_bytes<128>(), 1, "optin,only=90");
KC_CUDA_LAUNCH("dense/gemm/f32_wgmma128", (kc_gemm_wgmma<128, float>), kc::gemm90::kThreads,
               kc::gemm90::smem_bytes<128>(), 1, "optin,only=90");
