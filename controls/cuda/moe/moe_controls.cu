// The CUDA unit of the MoE, scan and sampling controls: the served kernels' templates with one fault
// each (their .cuh say which), and their launches.
#include "../../../kernels/moe/combine/combine.cuh"
#include "../../../kernels/moe/route/route.cuh"
#include "../../../kernels/sampling/pick/pick.cuh"
#include "kc/cuda_launch.hpp"
#include "moe_controls.hpp"

void kc::moe_ctl::route(const float* logits, const float* bias, int* ids, float* weights, int* counts, int* offsets,
                        int* perm, int tokens, int experts, int k, bool sigmoid, int fault, void* stream) {
  auto st = static_cast<cudaStream_t>(stream);
  using kc::cu::moe_route_launch;
  if (fault == 1) moe_route_launch<1>(logits, bias, ids, weights, counts, offsets, perm, tokens, experts, k, sigmoid, st);
  if (fault == 2) moe_route_launch<2>(logits, bias, ids, weights, counts, offsets, perm, tokens, experts, k, sigmoid, st);
  if (fault == 3) moe_route_launch<3>(logits, bias, ids, weights, counts, offsets, perm, tokens, experts, k, sigmoid, st);
  if (fault == 4) moe_route_launch<4>(logits, bias, ids, weights, counts, offsets, perm, tokens, experts, k, sigmoid, st);
}

void kc::moe_ctl::combine_drop_last(const void* e, const int* slot, const float* w, const void* shared, void* y,
                                    int tokens, int hidden, int k, void* stream) {
  const dim3 grid((hidden / 8 + kc::cu::kCombineThreads - 1) / kc::cu::kCombineThreads, tokens);
  kc_moe_combine_bf16<1><<<grid, kc::cu::kCombineThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const kc_u4*>(e), slot, w, static_cast<const kc_u4*>(shared), static_cast<kc_u4*>(y), hidden, k);
}

void kc::moe_ctl::draw_skip_last(const float* p, const float* u, const float* top_p, int* id, int rows, int vocab,
                                 int k, void* stream) {
  kc_sample_draw<true><<<rows, kc::cu::kDrawThreads, 0, static_cast<cudaStream_t>(stream)>>>(p, u, top_p, id, vocab, k);
}

KC_CUDA_LAUNCH("moe/ctl/ties_high", (kc_moe_route<1>), kc::cu::kRouteWarps * 32, 0);
KC_CUDA_LAUNCH("moe/ctl/ties_high/order", (kc_moe_order<1>), kc::cu::kRouteMaxExperts, 0);
KC_CUDA_LAUNCH("moe/ctl/nan_as_number", (kc_moe_route<2>), kc::cu::kRouteWarps * 32, 0);
KC_CUDA_LAUNCH("moe/ctl/nan_as_number/order", (kc_moe_order<2>), kc::cu::kRouteMaxExperts, 0);
KC_CUDA_LAUNCH("moe/ctl/renorm_all", (kc_moe_route<3>), kc::cu::kRouteWarps * 32, 0);
KC_CUDA_LAUNCH("moe/ctl/renorm_all/order", (kc_moe_order<3>), kc::cu::kRouteMaxExperts, 0);
KC_CUDA_LAUNCH("moe/ctl/perm_repeat", (kc_moe_route<4>), kc::cu::kRouteWarps * 32, 0);
KC_CUDA_LAUNCH("moe/ctl/perm_repeat/order", (kc_moe_order<4>), kc::cu::kRouteMaxExperts, 0);
KC_CUDA_LAUNCH("moe/ctl/combine_drop_last", (kc_moe_combine_bf16<1>), kc::cu::kCombineThreads, 0);
KC_CUDA_LAUNCH("sampling/ctl/last_bucket_ignored", (kc_sample_draw<true>), kc::cu::kDrawThreads, 0);
