// Planted controls of the MoE router and combine (kernels/moe/cpu/moe_cpu.hpp), one fault each.
#include "../../kernels/moe/cpu/moe_cpu.hpp"

using kc::moe::Route;
using kc::moe::Score;
using moe_cpu::Fault;

namespace {
kc::Entry route_control(Route r, Fault f, kc::Gate g, kc::Why why, const char* note) {
  return moe_cpu::route_entry(r).control(g, why).note(note).launch(
      [r, f](const kc::Buffers& b) { moe_cpu::route(b, r, f); });
}
}  // namespace

KC_CONTROL("moe/route/ctl_ties_high", cpu) {
  return route_control({Score::softmax, 8, false}, Fault::ties_high, kc::Gate::nonfinite, kc::Why::rule_broken,
                       "equal logits go to the higher expert");
}
KC_CONTROL("moe/route/ctl_nan_as_number", cpu) {
  return route_control({Score::softmax, 8, false}, Fault::nan_number, kc::Gate::nonfinite, kc::Why::rule_broken,
                       "a NaN logit ranked by plain comparisons, as if a number");
}
KC_CONTROL("moe/route/ctl_renorm_all", cpu) {
  return route_control({Score::sigmoid, 8, true}, Fault::renorm_all, kc::Gate::shapes, kc::Why::bound,
                       "weights renormalised over every expert, not the k picked");
}
KC_CONTROL("moe/route/ctl_perm_repeat", cpu) {
  return route_control({Score::softmax, 8, false}, Fault::perm_repeat, kc::Gate::shapes, kc::Why::bound,
                       "the permutation's last slot repeats its first token");
}
KC_CONTROL("moe/combine/ctl_drop_last", cpu) {
  const kc::moe::Combine c{8, true, kc::DType::bf16, kc::DType::bf16};
  return moe_cpu::combine_entry(c, false)
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("the k-th expert's row is never added")
      .launch([c](const kc::Buffers& b) { moe_cpu::combine<kc::bf16, kc::bf16>(b, c, Fault::drop_last); });
}
