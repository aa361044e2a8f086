// Contract of the CUDA row dot (dot.cuh, launched by dot.cu): bf16 x and w, fp32 out.
#include "../../common/cuda_contract.hpp"
#include "dot.cuh"

using namespace kc::cu;

static kc::Entry k_rows_dot_f32(kc::cu::Served env) {
  return kc::rows::dot(kc::DType::bf16, kc::DType::f32)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return loop_depth(s["rows"], s["cols"]); })
      .launches({"rows/dot/f32", "rows/dot/f32/r2"})
      .picks([](const kc::Shape& s) {
        return std::string(dot_rows_a_thread(int(s["rows"]), int(s["cols"])) == 2 ? "rows/dot/f32/r2" : "rows/dot/f32");
      })
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x", "w"});
        need_cols(b, 8, 1 << 16);
        row_dot_f32(b.in<kc::bf16>("x"), b.in<kc::bf16>("w"), b.out<float>("y"), int(b.shape()["rows"]),
                    int(b.shape()["cols"]), b.stream());
      });
}
KC_KERNEL("rows/dot/f32", cuda) { return k_rows_dot_f32(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/dot/f32/prompt", cuda) { return k_rows_dot_f32(kc::cu::prompt_env()); }
