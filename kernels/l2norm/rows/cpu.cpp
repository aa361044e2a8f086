// l2norm/rows/bf16 and l2norm/add_rows/bf16 (a bf16 residual added and stored first) on the CPU.
#include "l2norm_cpu.hpp"

using kc::l2norm::Residual;

KC_KERNEL("l2norm/rows/bf16", cpu) {
  return kc::l2norm_cpu::envelope(kc::l2norm::rows(Residual::none)).launch([](const kc::Buffers& b) {
    kc::l2norm_cpu::rows(b, Residual::none);
  });
}
KC_KERNEL("l2norm/add_rows/bf16", cpu) {
  return kc::l2norm_cpu::envelope(kc::l2norm::rows(Residual::rounded)).launch([](const kc::Buffers& b) {
    kc::l2norm_cpu::rows(b, Residual::rounded);
  });
}
