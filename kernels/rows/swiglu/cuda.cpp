// Contract of the CUDA SwiGLU rows (swiglu.cuh, launched by swiglu.cu), checked at MLX's bf16
// rounding points.
#include "../../common/cuda_contract.hpp"
#include "swiglu.cuh"

using namespace kc::cu;

// No sums: each step is one fp32 op (or expf) before its rounding; the family carries the interval
// with expf at 2 ulp, as the CUDA C Programming Guide documents it.
static kc::Entry k_rows_swiglu_bf16(kc::cu::Served env) {
  return kc::rows::swiglu()
      .served(std::move(env))
      .tile("cols", 8, 8, 8)  // elementwise: any multiple of one 16-byte vector
      .launches({"rows/swiglu/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"g", "u", "y"});
        need_cols(b, 8, 1 << 20);
        swiglu_bf16(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                    long(b.shape()["rows"]) * b.shape()["cols"], b.stream());
      });
}
KC_KERNEL("rows/swiglu/bf16", cuda) { return k_rows_swiglu_bf16(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/swiglu/bf16/prompt", cuda) { return k_rows_swiglu_bf16(kc::cu::prompt_env()); }
