// The CUDA unit of the served split at head dim 256 (cuda_attention.cuh's kc_attn_split): its exports to
// the contracts (cuda_served.hpp) and its launch. One unit a head dim, so nvcc builds them side by side.
#include "../cuda_served.hpp"
#include "kc/cuda_launch.hpp"

template void kc::attn_cu::served_split_prepare<256>();
template int kc::attn_cu::served_split_wave<256>();
template void kc::attn_cu::served_split_at<256>(const kc::attn_cu::Args&, void*);

KC_CUDA_LAUNCH("attention/split/d256", (kc_attn_split<256, 0>), kc::attn_cu::kThreads, kc::attn_cu::Tile<256>::kSmem,
               1, "optin");
