// The launchers of the CUDA MoE, scan and sampling controls (moe_controls.cu): the served kernels'
// templates instantiated with one planted fault each.
#pragma once

namespace kc::moe_ctl {
// fault 1 ties to the higher expert, 2 a NaN ranked as a number, 3 weights over every expert, 4 the
// permutation repeating its first slot (kernels/moe/route/route.cuh).
void route(const float* logits, const float* bias, int* ids, float* weights, int* counts, int* offsets, int* perm,
           int tokens, int experts, int k, bool sigmoid, int fault, void* stream);
void combine_drop_last(const void* e, const int* slot, const float* w, const void* shared, void* y, int tokens,
                       int hidden, int k, void* stream);
void draw_skip_last(const float* p, const float* u, const float* top_p, int* id, int rows, int vocab, int k,
                    void* stream);
}  // namespace kc::moe_ctl
