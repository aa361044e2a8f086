// CPU affine-quantized projections at every bit width and group MLX serves (run by CI).
#include "affine_cpu.hpp"
#include "kc/families/affine.hpp"
#include "kc/registry.hpp"

namespace {
using namespace kc;

template <int Bits, int Group, class Out> Entry cpu_qmv() {
  return affine::projection(Bits, Group, dtype_of<Out>())
      .served({{"m", {1, 3}}, {"n", {16, 40}}, {"k", {2 * Group, 512}}})
      .range("k", Group, Group)
      .sums(DType::f32, [](const Shape& s) { return affine_cpu::depth(s, Group); })
      .launch([](const Buffers& b) { affine_cpu::qmv<Out>(b, Bits, Group); });
}
}  // namespace

#define KC_CPU_QMV(B, G)                                                             \
  KC_KERNEL("affine/qmv/b" #B "_g" #G, cpu) { return cpu_qmv<B, G, kc::bf16>(); }
KC_CPU_QMV(2, 32)
KC_CPU_QMV(2, 64)
KC_CPU_QMV(2, 128)
KC_CPU_QMV(3, 32)
KC_CPU_QMV(3, 64)
KC_CPU_QMV(3, 128)
KC_CPU_QMV(4, 32)
KC_CPU_QMV(4, 64)
KC_CPU_QMV(4, 128)
KC_CPU_QMV(5, 32)
KC_CPU_QMV(5, 64)
KC_CPU_QMV(5, 128)
KC_CPU_QMV(6, 32)
KC_CPU_QMV(6, 64)
KC_CPU_QMV(6, 128)
KC_CPU_QMV(8, 32)
KC_CPU_QMV(8, 64)
KC_CPU_QMV(8, 128)

KC_KERNEL("affine/qmv/b4_g64/f32", cpu) { return cpu_qmv<4, 64, float>(); }
