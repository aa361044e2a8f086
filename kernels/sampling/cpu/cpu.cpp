// Greedy picks (f32 and bf16 logits) and the top-50 / top-p draw on the CPU (sampling_cpu.hpp).
#include "sampling_cpu.hpp"

KC_KERNEL("sampling/greedy/f32", cpu) {
  return sampling_cpu::greedy_entry(kc::DType::f32).launch([](const kc::Buffers& b) { sampling_cpu::greedy<float>(b); });
}
KC_KERNEL("sampling/greedy/bf16", cpu) {
  return sampling_cpu::greedy_entry(kc::DType::bf16).launch([](const kc::Buffers& b) { sampling_cpu::greedy<kc::bf16>(b); });
}
KC_KERNEL("sampling/draw/top50", cpu) {
  return sampling_cpu::draw_entry().launch([](const kc::Buffers& b) { sampling_cpu::draw(b, 50, false); });
}
