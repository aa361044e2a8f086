// Contract of the CUDA row max (max.cuh, launched by max.cu): bf16 in and out; no sums (a max is
// exact).
#include "../../common/cuda_contract.hpp"
#include "max.cuh"

using namespace kc::cu;

static kc::Entry k_rows_max_bf16(kc::cu::Served env) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .launches({"rows/max/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x"});
        need_cols(b, 8, 1 << 16);
        row_max_bf16(b.in<kc::bf16>("x"), b.out<kc::bf16>("y"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                     b.stream());
      });
}
KC_KERNEL("rows/max/bf16", cuda) { return k_rows_max_bf16(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/max/bf16/prompt", cuda) { return k_rows_max_bf16(kc::cu::prompt_env()); }
