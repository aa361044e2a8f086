// Contracts of the CUDA embedding gather (gather.cuh, launched by gather.cu): bf16 and f32 tables,
// at decode (a few tokens) and prompt (many) sizes, rows of whole 16-byte vectors.
#include "../../common/cuda_contract.hpp"
#include "gather.cuh"
#include "kc/families/embedding.hpp"

namespace {
// hidden 8200: more than one block's 1,024 vectors a row (bf16 two pieces, f32 three, the last
// ragged); a small vocab keeps the table's fill cheap, its last row and bad ids all the same.
template <class T> kc::Entry entry(kc::DType t, std::vector<int64_t> tokens, std::vector<int64_t> hidden) {
  constexpr int64_t step = 16 / int64_t(sizeof(T));
  return kc::embedding::gather(t)
      .served({{"vocab", {3, 100}}, {"hidden", std::move(hidden)}, {"tokens", std::move(tokens)}})
      .range("hidden", step, step)  // whole 16-byte vectors
      .launches({"embedding/gather"})
      .launch([](const kc::Buffers& b) {
        kc::cu::need_aligned16(b, {"table", "y"});
        const int64_t hidden = b.shape()["hidden"];
        if (hidden % step)
          throw kc::Error("hidden " + std::to_string(hidden) + " is not a whole number of 16-byte vectors");
        kc::cu::embedding_gather(b.in<T>("table"), b.in<int32_t>("ids"), b.out<T>("y"), int(b.shape()["tokens"]),
                                 long(b.shape()["vocab"]), long(hidden * int64_t(sizeof(T))), b.stream());
      });
}
}  // namespace

KC_KERNEL("embedding/gather/bf16", cuda) { return entry<kc::bf16>(kc::DType::bf16, {1, 7, 64}, {64, 8200}); }
KC_KERNEL("embedding/gather/f32", cuda) { return entry<float>(kc::DType::f32, {1, 7, 64}, {64, 8200}); }
KC_KERNEL("embedding/gather/bf16/prompt", cuda) { return entry<kc::bf16>(kc::DType::bf16, {1024}, {64, 1032}); }
