// Contract of the CUDA row sum (sum.cuh, launched by sum.cu): bf16 in, fp32 out.
#include "../../common/cuda_contract.hpp"
#include "sum.cuh"

using namespace kc::cu;

static kc::Entry k_rows_sum_f32(kc::cu::Served env) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return loop_depth(s["rows"], s["cols"]); })
      .launches({"rows/sum/f32"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x"});
        need_cols(b, 8, 1 << 16);
        row_sum_f32(b.in<kc::bf16>("x"), b.out<float>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                    b.stream());
      });
}
KC_KERNEL("rows/sum/f32", cuda) { return k_rows_sum_f32(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/sum/f32/prompt", cuda) { return k_rows_sum_f32(kc::cu::prompt_env()); }
