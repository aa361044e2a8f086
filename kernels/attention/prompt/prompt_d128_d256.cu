// A CUDA unit of the served prompt attention: prompt.cuh's mma.sync form at head dims 128 and 256
// (prompt_served.hpp's exports) and their launches. The two share a unit because ptxas's allocation
// of one kernel depends on the others beside it: nvcc 13.0 gives d 128 compiled without d 256 one
// register more on sm_80 to sm_90 than its records hold.
#include "kc/cuda_launch.hpp"
#include "prompt_served.hpp"

template void kc::attn_cu::served_prompt_prepare<128>();
template void kc::attn_cu::served_prompt_at<128>(const kc::attn_cu::PromptArgs&, void*);
template void kc::attn_cu::served_prompt_prepare<256>();
template void kc::attn_cu::served_prompt_at<256>(const kc::attn_cu::PromptArgs&, void*);

KC_CUDA_LAUNCH("attention/prompt/d128", (kc_attn_prompt<128, 0>), kc::attn_cu::kThreads,
               kc::attn_cu::kPromptSmem<128>, 1, "optin");
KC_CUDA_LAUNCH("attention/prompt/d256", (kc_attn_prompt<256, 0>), kc::attn_cu::kThreads,
               kc::attn_cu::kPromptSmem<256>, 1, "optin");
