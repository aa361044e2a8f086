// Contracts of the CUDA greedy pick and top-50 / top-p draw (pick.cuh, launched by pick.cu), at
// vocabularies to 256k (Gemma's 262,144) and a decode's rows.
#include "../../common/cuda_contract.hpp"
#include "kc/families/sampling.hpp"
#include "pick.cuh"

static kc::Entry k_greedy(kc::DType t) {
  const bool bf = t == kc::DType::bf16;
  return kc::sampling::greedy(t)
      .entry()
      .served({{"rows", {1, 7, 32}}, {"vocab", {1000, 151936, 262144}}})
      .launches({bf ? "sampling/greedy/bf16" : "sampling/greedy/f32"})
      .launch([bf](const kc::Buffers& b) {
        kc::cu::sample_greedy(b.ptr("logits"), bf, b.out<int32_t>("id"), int(b.shape()["rows"]),
                              int(b.shape()["vocab"]), b.stream());
      });
}
KC_KERNEL("sampling/greedy/f32", cuda) { return k_greedy(kc::DType::f32); }
KC_KERNEL("sampling/greedy/bf16", cuda) { return k_greedy(kc::DType::bf16); }

KC_KERNEL("sampling/draw/top50", cuda) {
  return kc::sampling::draw(50)
      .entry()
      .served({{"rows", {1, 7, 32}}, {"vocab", {64, 32000, 262144}}})
      .launches({"sampling/draw"})
      .launch([](const kc::Buffers& b) {
        kc::cu::sample_draw(b.in<float>("p"), b.in<float>("u"), b.in<float>("top_p"), b.out<int32_t>("id"),
                            int(b.shape()["rows"]), int(b.shape()["vocab"]),
                            int(std::min<int64_t>(50, b.shape()["vocab"])), b.stream());
      });
}
