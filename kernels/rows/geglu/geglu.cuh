// GeGLU rows in MLX's bf16 op-by-op steps (every op in fp32, then rounded to bf16):
//   gelu(g) = bf16(bf16(0.5 * g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2))))), y = bf16(gelu * u).
// On the GLU rows' kernel (kernels/common/kc_glu.cuh). Only the first step (g times an fp32 constant)
// and erf need fp32; every later step is one packed bf16x2 op with the same bits (bf2_mul, bf2_add):
// three instructions a pair instead of fifteen. With erff's ~25 an element, the fp32 steps left GeGLU
// short of issue slots at prompt sizes (84-89% of the copy at 8192 x 16,384 on the H200, moving from
// run to run; 96-98% now).
#pragma once
#include "../../common/kc_glu.cuh"

namespace kc::cu {
// Vectors a thread (1, 2 or 4; the served launch is kc_glu_bf16<kGegluV, GegluWord>). 2: with the
// packed steps, 1-3% ahead of 4 at 8192 rows of 4,096 to 16,384 and at 32 rows (H200, three runs of
// bench/cuda/bench_rows.cu); 1 is 5-12% behind at prompt sizes.
constexpr int kGegluV = 2;

// The launcher geglu.cu exports to the contract (cuda.cpp): n elements of bf16 g, u and y, on the
// harness's stream.
void geglu_bf16(const void* g, const void* u, void* y, long n, void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
namespace kc::cu {
// t = bf16(erf(bf16(g / sqrt 2))) in fp32, then y = bf16(bf16(bf16(0.5 g) * bf16(1 + t)) * u) packed.
// A NaN g makes y NaN through 0.5 g.
struct GegluWord {
  __device__ uint32_t operator()(uint32_t g, uint32_t u) const {
    const float a0 = rb(bf16_lo(g) * 0.70710678118654752440f), a1 = rb(bf16_hi(g) * 0.70710678118654752440f);
    const uint32_t t = pack_bf16(erff(a0), erff(a1));
    const uint32_t h = bf2_mul(g, 0x3f003f00u), p = bf2_add(t, 0x3f803f80u);  // 0.5, 1 in both halves
    return bf2_mul(bf2_mul(h, p), u);
  }
};

inline void launch_geglu(const void* g, const void* u, void* y, long n, cudaStream_t st, int v = kGegluV) {
  launch_glu<GegluWord>(g, u, y, n, st, v);
}
}  // namespace kc::cu
#endif
