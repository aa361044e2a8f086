// Contract of the CUDA GeGLU rows (geglu.cuh, launched by geglu.cu), checked at MLX's bf16 rounding
// points.
#include "../../common/cuda_contract.hpp"
#include "geglu.cuh"

using namespace kc::cu;

// No sums: each step is one fp32 op (or erff) before its rounding; the family carries the interval
// with M_SQRT1_2 rounded to fp32 either way and erff at 2 ulp, as the CUDA C Programming Guide says.
static kc::Entry k_rows_geglu_bf16(kc::cu::Served env) {
  return kc::rows::geglu()
      .served(std::move(env))
      .tile("cols", 8, 8, 8)
      .launches({"rows/geglu/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"g", "u", "y"});
        need_cols(b, 8, 1 << 20);
        geglu_bf16(b.in<kc::bf16>("g"), b.in<kc::bf16>("u"), b.out<kc::bf16>("y"),
                   long(b.shape()["rows"]) * b.shape()["cols"], b.stream());
      });
}
KC_KERNEL("rows/geglu/bf16", cuda) { return k_rows_geglu_bf16(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/geglu/bf16/prompt", cuda) { return k_rows_geglu_bf16(kc::cu::prompt_env()); }
