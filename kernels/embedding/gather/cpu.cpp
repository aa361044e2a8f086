// embedding/gather/{bf16,f32} on the CPU: rows copied as bytes, zeros for a bad id.
#include "gather_cpu.hpp"

namespace {
kc::Entry envelope(kc::Entry&& e) {
  return std::move(e).served({{"vocab", {3, 300}}, {"hidden", {64, 520}}, {"tokens", {1, 7, 40}}});
}
}  // namespace

KC_KERNEL("embedding/gather/bf16", cpu) {
  return envelope(kc::embedding::gather(kc::DType::bf16)).launch([](const kc::Buffers& b) { kc::embedding_cpu::gather<kc::bf16>(b); });
}
KC_KERNEL("embedding/gather/f32", cpu) {
  return envelope(kc::embedding::gather(kc::DType::f32)).launch([](const kc::Buffers& b) { kc::embedding_cpu::gather<float>(b); });
}
