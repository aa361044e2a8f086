// CPU projections: the reference's own host kernels, run by CI on every gate.
#include "dense_cpu.hpp"
#include "kc/families/dense.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;
using kc::dense_cpu::Fault;

// Decode rows on the host: small envelopes, so CI's two cores run every gate in seconds.
Entry cpu_projection(DType out) {
  return dense::projection(out)
      .served({{"m", {1, 3, 8}}, {"n", {16, 100}}, {"k", {64, 200, 1024}}})
      .invariant("m")  // every output its own slices, met in one order, whatever m
      .tile("k", dense_cpu::kTileK, 1, 1)
      .sums(DType::f32, dense_cpu::depth);
}
}  // namespace

KC_KERNEL("dense/gemv/f32", cpu) {
  return cpu_projection(kc::DType::f32).launch([](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b); });
}

KC_KERNEL("dense/gemv/bf16", cpu) {
  return cpu_projection(kc::DType::bf16).launch([](const kc::Buffers& b) { kc::dense_cpu::gemv<kc::bf16>(b); });
}

KC_KERNEL("dense/gemv_splitk/f32", cpu) {
  return cpu_projection(kc::DType::f32)
      .replaces("dense/gemv/f32", [](const kc::Buffers& b) { kc::dense_cpu::gemv<float>(b); })
      .launch([](const kc::Buffers& b) { kc::dense_cpu::gemv_splitk<float>(b); });
}
