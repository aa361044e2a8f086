// Contract of the CUDA MoE combine (combine.cuh, launched by combine.cu): top-8 bf16 rows with a
// shared expert, from its slot and in place, at a decode's tokens and a prompt chunk's.
#include "../../common/cuda_contract.hpp"
#include "kc/families/moe.hpp"
#include "combine.cuh"

static kc::Entry k_combine(bool in_place) {
  const kc::moe::Combine c{8, true, kc::DType::bf16, kc::DType::bf16};
  kc::Entry e = kc::moe::combine_formula(c)
                    .entry()
                    .served({{"tokens", {1, 7, 16}}, {"hidden", {2048, 7168}}, {"slots", {8, 512}}})
                    .range("hidden", 8, 8)  // eight elements a thread
                    .sums(kc::DType::f32, [](const kc::Shape&) { return 8.0; })  // one chain of 8 fmas
                    .hidden("a bf16 output of k products: its rounding hides a bf16 sum's miss (fp16 replays overflow)")
                    .launches({"moe/combine/bf16"})
                    .launch([](const kc::Buffers& b) {
                      kc::cu::need_aligned16(b, {"e", "shared", "y"});
                      kc::cu::moe_combine_bf16(b.in<kc::bf16>("e"), b.in<int32_t>("slot"), b.in<float>("w"),
                                               b.in<kc::bf16>("shared"), b.out<kc::bf16>("y"),
                                               int(b.shape()["tokens"]), int(b.shape()["hidden"]), 8, b.stream());
                    });
  if (in_place) return std::move(e).in_place("y", "shared");
  return e;
}
KC_KERNEL("moe/combine/bf16_slot", cuda) { return k_combine(false); }
KC_KERNEL("moe/combine/bf16_in_place", cuda) { return k_combine(true); }
