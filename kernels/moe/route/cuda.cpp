// Contract of the CUDA MoE router (route.cuh, launched by route.cu): softmax top-8 and top-2 and
// sigmoid top-8 with a picking bias, 64 to 256 experts (gate 3 adds 128 and 192).
#include "../../common/cuda_contract.hpp"
#include "route.cuh"
#include "route_contract.hpp"

using kc::moe::Route;
using kc::moe::Score;

// A prompt's 4096 tokens where `prompt` (the float64 ranking of every token is the cost), a decode's
// 1 to 64 at each served expert count.
static kc::Entry k_route(Route r, bool prompt) {
  std::vector<int64_t> tokens{1, 7, 64};
  if (prompt) tokens.push_back(4096);
  return kc::cu::route_contract(r, tokens, "moe/route")
      .launch([r](const kc::Buffers& b) {
        kc::cu::moe_route(b.in<float>("logits"), r.bias ? b.in<float>("bias") : nullptr, b.out<int32_t>("ids"),
                          b.out<float>("weights"), b.out<int32_t>("counts"), b.out<int32_t>("offsets"),
                          b.out<int32_t>("perm"), int(b.shape()["tokens"]), int(b.shape()["experts"]), int(r.k),
                          r.score == Score::sigmoid, b.stream());
      });
}
KC_KERNEL("moe/route/softmax_top8", cuda) { return k_route({Score::softmax, 8, false}, true); }
KC_KERNEL("moe/route/softmax_top2", cuda) { return k_route({Score::softmax, 2, false}, false); }
KC_KERNEL("moe/route/sigmoid_bias_top8", cuda) { return k_route({Score::sigmoid, 8, true}, true); }
