// A CUDA unit of the served prompt attention: prompt_sm90a.cuh's wgmma form at head dims 64 and 128
// (prompt_served.hpp's exports) and its launches. Whether the wgmma form runs is this unit's
// question: kc::gemm90::image_has_wgmma reads the image the driver loaded of the unit it is in.
#include "kc/cuda_launch.hpp"
#include "prompt_served.hpp"
#include "prompt_sm90a.cuh"

bool kc::attn_cu::served_prompt90_here() { return kc::gemm90::image_has_wgmma(); }
void kc::attn_cu::served_prompt90_prepare() { (void)prepare_prompt90<64>(), (void)prepare_prompt90<128>(); }
void kc::attn_cu::served_prompt90(const PromptArgs& a, int d, void* stream) {
  launch_prompt90(a, d, static_cast<cudaStream_t>(stream));
}

// The wgmma form is in every image, its body only in sm_90a's: only=90.
KC_CUDA_LAUNCH("attention/prompt/wgmma_d64", (kc_attn_prompt90<64>), kc::attn_cu::kThreads90,
               kc::attn_cu::kSmem90<64>, 1, "optin,only=90");
KC_CUDA_LAUNCH("attention/prompt/wgmma_d128", (kc_attn_prompt90<128>), kc::attn_cu::kThreads90,
               kc::attn_cu::kSmem90<128>, 1, "optin,only=90");
