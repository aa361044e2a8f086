// SwiGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   sigmoid(g) = bf16(1 / bf16(1 + bf16(exp(-g)))), silu = bf16(g * sigmoid), y = bf16(silu * u).
// On the GLU rows' kernel (kernels/common/kc_glu.cuh): exp, 1 + e and the division in fp32, each
// rounded (two elements a packed conversion, the same nearest-even rounding as one at a time); the
// two products packed bf16x2 ops with the same bits (bf2_mul).
#pragma once
#include "../../common/kc_glu.cuh"

namespace kc::cu {
// Vectors a thread (1, 2 or 4; the served launch is kc_glu_bf16<kSwigluV, SwigluWord>).
// 1 here: at the copy's rate already (H200, 8192 rows x 4,096..16,384: 103-107% of the copy).
constexpr int kSwigluV = 1;

// The launcher swiglu.cu exports to the contract (cuda.cpp): n elements of bf16 g, u and y, on the
// harness's stream.
void swiglu_bf16(const void* g, const void* u, void* y, long n, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
struct SwigluWord {
  __device__ uint32_t operator()(uint32_t g, uint32_t u) const {
    float e0 = expf(-bf16_lo(g)), e1 = expf(-bf16_hi(g));
    rb2(e0, e1);
    float d0 = 1.0f + e0, d1 = 1.0f + e1;
    rb2(d0, d1);
    const uint32_t s = pack_bf16(1.0f / d0, 1.0f / d1);
    return bf2_mul(bf2_mul(g, s), u);
  }
};

inline void launch_swiglu(const void* g, const void* u, void* y, long n, cudaStream_t st, int v = kSwigluV) {
  launch_glu<SwigluWord>(g, u, y, n, st, v);
}
}  // namespace kc::cu
#endif
