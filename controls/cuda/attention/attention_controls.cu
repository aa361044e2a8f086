// The CUDA unit of the attention family's controls (cuda.cpp registers them): each control's device
// side (attention.cuh: decode's split and merge; attention_prompt.cuh: the prompt kernel), one fault
// compiled in each, and their launches.
#include "attention.cuh"
#include "attention_prompt.cuh"
#include "kc/cuda_launch.hpp"

KC_CUDA_LAUNCH("attention/ctl/no_rescale", (kc_attn_split<64, kc::attn_cu::kKeepL>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/past_causal_edge", (kc_attn_split<64, kc::attn_cu::kPastEdge>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/past_window", (kc_attn_split<64, kc::attn_cu::kPastWindow>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/stale_page", (kc_attn_split<64, kc::attn_cu::kStalePage>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/swapped_tables", (kc_attn_split<64, kc::attn_cu::kSwapTables>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/masked_inf_nan", (kc_attn_split<64, kc::attn_cu::kMaskedTiles>), kc::attn_cu::kThreads,
               kc::attn_cu::Tile<64>::kSmem, 1, "optin");
KC_CUDA_LAUNCH("attention/ctl/merge_drops_scale", (kc_attn_merge<64, float, true>), kc::attn_cu::kThreads, 0, 1, "-");

KC_CUDA_LAUNCH("attention/ctl/prompt_past_edge", (kc_attn_prompt<64, kc::attn_cu::kPromptPastEdge>),
               kc::attn_cu::kThreads, kc::attn_cu::kPromptSmem<64>, 1, "-");
KC_CUDA_LAUNCH("attention/ctl/prompt_pad_lane", (kc_attn_prompt<64, kc::attn_cu::kPromptPadLane>),
               kc::attn_cu::kThreads, kc::attn_cu::kPromptSmem<64>, 1, "-");
KC_CUDA_LAUNCH("attention/ctl/prompt_diag_first", (kc_attn_prompt<64, kc::attn_cu::kPromptDiagFirst>),
               kc::attn_cu::kThreads, kc::attn_cu::kPromptSmem<64>, 1, "-");
