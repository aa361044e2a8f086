// The served prompt kernels, each instantiated in one unit (cuda_launch.cuh says why), three units so
// nvcc builds them side by side: the mma.sync form at head dim 64 in prompt_d64.cu, at 128 and 256 in
// prompt_d128_d256.cu, the wgmma form in prompt_sm90a.cu. The contract (cuda.cpp) calls them here, so
// every launch it makes is of the copy whose launch record the backend checks and whose
// shared-memory opt-in was made. Plain C++ above the device guard: the registration includes it
// without nvcc, and dispatches over the head dim there (in a device unit that dispatch would
// instantiate every head dim's kernel).
#pragma once
#include "prompt.cuh"

namespace kc::attn_cu {

// The mma.sync form at head dim D: its opt-in to its dynamic shared memory (throws where the device
// refuses) and its launch on the harness's stream.
template <int D> void served_prompt_prepare();
template <int D> void served_prompt_at(const PromptArgs& a, void* stream);

// The wgmma form: whether prompt_sm90a.cu's loaded image holds its body (kc::gemm90::image_has_wgmma:
// an sm_90 device loading the sm_90a image, and KC_CUDA_NO_WGMMA unset), its opt-in at head dims 64
// and 128 (errors left to the launch), and its launch.
bool served_prompt90_here();
void served_prompt90_prepare();
void served_prompt90(const PromptArgs& a, int d, void* stream);

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
// The definitions each mma.sync unit instantiates for its own head dims.
namespace kc::attn_cu {
template <int D> void served_prompt_prepare() { prepare_prompt<D, kPromptNone>(); }
template <int D> void served_prompt_at(const PromptArgs& a, void* stream) {
  launch_prompt_one<D, kPromptNone>(a, static_cast<cudaStream_t>(stream));
  check_launch("attention prompt");
}
}  // namespace kc::attn_cu
#endif
