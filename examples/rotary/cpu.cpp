// The rotary example on the CPU, and its control: products rounded to bf16 before the sum, which
// gate 3 finds where a rotation cancels.
#include <kc/registry.hpp>

#include "rotary_cpu.hpp"

KC_KERNEL("examples/rotary/bf16", cpu) { return rope::contract().launch([](const kc::Buffers& b) { rope::rotate_all(b); }); }

KC_CONTROL("examples/rotary/ctl_bf16_products", cpu) {
  return rope::contract()
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("each product rounded to bf16 before the sum")
      .launch([](const kc::Buffers& b) { rope::rotate_all(b, kc::DType::bf16); });
}
