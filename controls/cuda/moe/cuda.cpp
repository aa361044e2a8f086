// Registrations of the CUDA MoE, scan and sampling controls, launched by moe_controls.cu (the scan's
// by the served launcher with its carry dropped): each the served entry's contract with one fault.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../../../kernels/moe/route/route_contract.hpp"
#include "../../../kernels/scan/selective/selective_contract.hpp"
#include "kc/families/moe.hpp"
#include "kc/families/sampling.hpp"
#include "kc/families/scan.hpp"
#include "moe_controls.hpp"

using kc::moe::Route;
using kc::moe::Score;

namespace {
kc::Entry route_ctl(Route r, int fault, const std::string& name, kc::Gate g, kc::Why why, const char* note) {
  return kc::cu::route_contract(r, {1, 7, 64}, "moe/ctl/" + name)
      .control(g, why)
      .note(note)
      .launch([r, fault](const kc::Buffers& b) {
        kc::moe_ctl::route(b.in<float>("logits"), r.bias ? b.in<float>("bias") : nullptr, b.out<int32_t>("ids"),
                           b.out<float>("weights"), b.out<int32_t>("counts"), b.out<int32_t>("offsets"),
                           b.out<int32_t>("perm"), int(b.shape()["tokens"]), int(b.shape()["experts"]), int(r.k),
                           r.score == Score::sigmoid, fault, b.stream());
      });
}
}  // namespace

KC_CONTROL("moe/route/ctl_ties_high", cuda) {
  return route_ctl({Score::softmax, 8, false}, 1, "ties_high", kc::Gate::nonfinite, kc::Why::rule_broken,
                   "equal logits go to the higher expert");
}
KC_CONTROL("moe/route/ctl_nan_as_number", cuda) {
  return route_ctl({Score::softmax, 8, false}, 2, "nan_as_number", kc::Gate::nonfinite, kc::Why::rule_broken,
                   "a NaN logit ranked by plain comparisons, as if a number");
}
KC_CONTROL("moe/route/ctl_renorm_all", cuda) {
  return route_ctl({Score::sigmoid, 8, true}, 3, "renorm_all", kc::Gate::shapes, kc::Why::bound,
                   "weights renormalised over every expert, not the k picked");
}
KC_CONTROL("moe/route/ctl_perm_repeat", cuda) {
  return route_ctl({Score::softmax, 8, false}, 4, "perm_repeat", kc::Gate::shapes, kc::Why::bound,
                   "the permutation's last slot repeats its first token");
}

KC_CONTROL("moe/combine/ctl_drop_last", cuda) {
  return kc::moe::combine_formula({8, true, kc::DType::bf16, kc::DType::bf16})
      .entry()
      .served({{"tokens", {1, 7}}, {"hidden", {2048}}, {"slots", {8, 64}}})
      .range("hidden", 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape&) { return 8.0; })
      .hidden("a bf16 output of k products: its rounding hides a bf16 sum's miss (fp16 replays overflow)")
      .launches({"moe/ctl/combine_drop_last"})
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("the k-th expert's row is never added")
      .launch([](const kc::Buffers& b) {
        kc::moe_ctl::combine_drop_last(b.in<kc::bf16>("e"), b.in<int32_t>("slot"), b.in<float>("w"),
                                       b.in<kc::bf16>("shared"), b.out<kc::bf16>("y"), int(b.shape()["tokens"]),
                                       int(b.shape()["hidden"]), 8, b.stream());
      });
}

KC_CONTROL("scan/ctl_chunk_carry_lost", cuda) {
  auto run = [](const kc::Buffers& b, int chunk, bool lose) {
    kc::cu::scan_check_state(b);
    kc::cu::scan_selective(b.in<float>("x"), b.in<float>("dt"), b.in<float>("a"), b.in<float>("B"),
                           b.in<float>("C"), b.in<float>("h0"), b.out<float>("y"), b.out<float>("h"),
                           int(b.shape()["steps"]), int(b.shape()["channels"]), chunk, b.stream(), lose);
  };
  return kc::cu::scan_contract({1, 65, 130}, {8})
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .note("each 64-step chunk restarts from h0: the carry between chunks is lost")
      .replaces("scan/selective/f32", [run](const kc::Buffers& b) { run(b, 0, false); })
      .launch([run](const kc::Buffers& b) { run(b, kc::cu::kScanChunk, true); });
}

KC_CONTROL("sampling/ctl_last_bucket_ignored", cuda) {
  return kc::sampling::draw(50)
      .entry()
      .served({{"rows", {1, 7, 32}}, {"vocab", {64, 32000}}})
      .launches({"sampling/ctl/last_bucket_ignored"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("the draw stops one bucket short: the last kept id is never drawn")
      .launch([](const kc::Buffers& b) {
        kc::moe_ctl::draw_skip_last(b.in<float>("p"), b.in<float>("u"), b.in<float>("top_p"), b.out<int32_t>("id"),
                                    int(b.shape()["rows"]), int(b.shape()["vocab"]), 50, b.stream());
      });
}
