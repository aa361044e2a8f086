// Gate 3's tensor-core control on the CPU: a GEMM computed exactly as the H200's mma.sync m16n8k16
// bf16 computes it (kc::tc::simulate under the rule tools/tc-probe measured, bit-exact on the GPU:
// tc_rules_tests), one accumulator chained over K in steps of 16, stated as if each step's sum were
// exact and rounded once to fp32. The probe says a step cuts every addend to 25 bits below its
// largest and truncates its result, so on the dense family's `cut` fill (a product 1, then products
// near 2^-25 of one sign) the lost bits add up past that depth. The same kernel under the model's
// depth (kc::tc::depth) is within its bound on every fill (tests/tensor_core). The CUDA twin runs
// the real mma.sync GEMM (controls/cuda/dense_tc_exact_steps).
#include <vector>

#include "kc/families/dense.hpp"
#include "kc/registry.hpp"
#include "kc/tensor_core.hpp"

namespace {

const kc::tc::Measured& mma_bf16() {
  const kc::tc::Measured* m = kc::tc::find_measured("mma.m16n8k16.bf16");
  if (!m) throw kc::Error("dense/ctl_tc_exact_steps: no measured rule for mma.m16n8k16.bf16 (kc/tensor_core.hpp)");
  return *m;
}

void tc_gemm(const kc::Buffers& b) {
  const kc::Shape& s = b.shape();
  const int64_t M = s["m"], N = s["n"], K = s["k"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  const kc::bf16* w = b.in<kc::bf16>("w");
  float* y = b.out<float>("y");
  const kc::tc::Measured& mm = mma_bf16();
  std::vector<uint32_t> a(size_t(mm.K)), c(size_t(mm.K));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0;
      for (int64_t k0 = 0; k0 < K; k0 += mm.K) {
        // A ragged last step reads zeros past K, as the GPU kernel's zero-filled tile does.
        for (int64_t i = 0; i < mm.K; ++i) {
          const bool in = k0 + i < K;
          a[size_t(i)] = in ? x[m * K + k0 + i].bits : 0;
          c[size_t(i)] = in ? w[n * K + k0 + i].bits : 0;
        }
        acc = kc::tc::simulate(mm.rule, mm.fmt, a.data(), c.data(), mm.K, acc);
      }
      y[m * N + n] = acc;
    }
}

}  // namespace

// The stated depth: one fp32 rounding a k-step of 16 (the sum inside a step taken as exact).
KC_CONTROL("dense/ctl_tc_exact_steps/f32", cpu) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 17}}, {"n", {64}}, {"k", {64, 1024}}})
      .tile("k", 16, 8, 8)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["k"] + 15) / 16); })
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch(tc_gemm);
}
