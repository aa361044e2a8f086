// A CUDA unit of the served prompt attention: prompt.cuh's mma.sync form at head dim 64
// (prompt_served.hpp's exports) and its launch.
#include "kc/cuda_launch.hpp"
#include "prompt_served.hpp"

template void kc::attn_cu::served_prompt_prepare<64>();
template void kc::attn_cu::served_prompt_at<64>(const kc::attn_cu::PromptArgs&, void*);

KC_CUDA_LAUNCH("attention/prompt/d64", (kc_attn_prompt<64, 0>), kc::attn_cu::kThreads, kc::attn_cu::kPromptSmem<64>,
               1, "-");
