// The embedding gather's planted fault on the CPU: each token reads row id + 1 (mod vocab), an
// off-by-one in the row's address. Gate 3's pinned rows see it at the first element.
#include "../../kernels/embedding/gather/gather_cpu.hpp"

KC_CONTROL("embedding/ctl_next_row/bf16", cpu) {
  return kc::embedding::gather(kc::DType::bf16)
      .served({{"vocab", {3, 300}}, {"hidden", {64}}, {"tokens", {7}}})
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("reads the row after the id's")
      .launch([](const kc::Buffers& b) { kc::embedding_cpu::gather<kc::bf16>(b, 1); });
}
