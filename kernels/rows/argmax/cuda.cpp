// Contract of the CUDA row argmax (argmax.cuh, launched by argmax.cu): bf16 in, i32 ids, stated NaN
// rule (the family checks it: lowest id on a tie, -1 for a row holding a NaN).
#include "../../common/cuda_contract.hpp"
#include "argmax.cuh"

using namespace kc::cu;

static kc::Entry k_rows_argmax_bf16(kc::cu::Served env) {
  return kc::rows::argmax(kc::DType::bf16)
      .served(std::move(env))
      .tile("rows", kBlock / 32, 1, 1)
      .tile("cols", kBlock * 8, 8, 8)
      .launches({"rows/argmax/bf16"})
      .launch([](const kc::Buffers& b) {
        need_aligned16(b, {"x"});
        need_cols(b, 8, 1 << 16);  // ids ride in 16 bits of the key
        row_argmax_bf16(b.in<kc::bf16>("x"), b.out<int32_t>("id"), int(b.shape()["rows"]), int(b.shape()["cols"]),
                        b.stream());
      });
}
KC_KERNEL("rows/argmax/bf16", cuda) { return k_rows_argmax_bf16(kc::cu::decode_env({64, 4096, 16384})); }
KC_KERNEL("rows/argmax/bf16/prompt", cuda) { return k_rows_argmax_bf16(kc::cu::prompt_env()); }
