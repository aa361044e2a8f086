// The CUDA unit of the MoE router (route.cuh): the launcher its contract (cuda.cpp) calls, and its launches.
#include "route.cuh"
#include "kc/cuda_launch.hpp"

void kc::cu::moe_route(const float* logits, const float* bias, int* ids, float* weights, int* counts, int* offsets,
                       int* perm, int tokens, int experts, int k, bool sigmoid, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  moe_route_launch<0>(logits, bias, ids, weights, counts, offsets, perm, tokens, experts, k, sigmoid, st);
}

KC_CUDA_LAUNCH("moe/route", (kc_moe_route<0>), kc::cu::kRouteWarps * 32, 0);
KC_CUDA_LAUNCH("moe/route/order", (kc_moe_order<0>), kc::cu::kRouteMaxExperts, 0);
