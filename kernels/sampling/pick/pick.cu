// The CUDA unit of greedy and the draw (pick.cuh): the launchers their contracts (cuda.cpp) call, and their launches.
#include "pick.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::sample_greedy(const void* logits, bool bf16, int* id, int rows, int vocab, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  if (bf16)
    kc_sample_greedy<__nv_bfloat16><<<rows, kPickThreads, 0, st>>>(static_cast<const __nv_bfloat16*>(logits), id, vocab);
  else
    kc_sample_greedy<float><<<rows, kPickThreads, 0, st>>>(static_cast<const float*>(logits), id, vocab);
}

void kc::cu::sample_draw(const float* p, const float* u, const float* top_p, int* id, int rows, int vocab, int k,
                         void* stream) {
  kc_sample_draw<false><<<rows, kDrawThreads, 0, static_cast<cudaStream_t>(stream)>>>(p, u, top_p, id, vocab, k);
}

KC_CUDA_LAUNCH("sampling/greedy/f32", (kc_sample_greedy<float>), kc::cu::kPickThreads, 0);
KC_CUDA_LAUNCH("sampling/greedy/bf16", (kc_sample_greedy<__nv_bfloat16>), kc::cu::kPickThreads, 0);
KC_CUDA_LAUNCH("sampling/draw", (kc_sample_draw<false>), kc::cu::kDrawThreads, 0);
