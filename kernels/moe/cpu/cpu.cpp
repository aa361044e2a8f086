// The MoE router and combine on the CPU (moe_cpu.hpp): softmax top-8 and top-1, sigmoid with a
// picking bias (DeepSeek-V3's form), and the combine of bf16 rows from a slot and in place.
#include "moe_cpu.hpp"

using kc::moe::Combine;
using kc::moe::Route;
using kc::moe::Score;
using moe_cpu::Fault;

KC_KERNEL("moe/route/softmax_top8", cpu) {
  const Route r{Score::softmax, 8, false};
  return moe_cpu::route_entry(r).launch([r](const kc::Buffers& b) { moe_cpu::route(b, r, Fault::none); });
}
KC_KERNEL("moe/route/softmax_top1", cpu) {
  const Route r{Score::softmax, 1, false};
  return moe_cpu::route_entry(r).launch([r](const kc::Buffers& b) { moe_cpu::route(b, r, Fault::none); });
}
KC_KERNEL("moe/route/sigmoid_bias_top8", cpu) {
  const Route r{Score::sigmoid, 8, true};
  return moe_cpu::route_entry(r).launch([r](const kc::Buffers& b) { moe_cpu::route(b, r, Fault::none); });
}
KC_KERNEL("moe/combine/bf16_slot", cpu) {
  const Combine c{8, true, kc::DType::bf16, kc::DType::bf16};
  return moe_cpu::combine_entry(c, false).launch([c](const kc::Buffers& b) {
    moe_cpu::combine<kc::bf16, kc::bf16>(b, c, Fault::none);
  });
}
KC_KERNEL("moe/combine/bf16_in_place", cpu) {
  const Combine c{8, true, kc::DType::bf16, kc::DType::bf16};
  return moe_cpu::combine_entry(c, true).launch([c](const kc::Buffers& b) {
    moe_cpu::combine<kc::bf16, kc::bf16>(b, c, Fault::none);
  });
}
