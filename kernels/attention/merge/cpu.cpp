// attention/merge/* on the CPU: a row's partials merged in two passes (their max, then the weighted
// sums in chunk order), out = acc / L, lse = max + log L.
#include <cmath>
#include <vector>

#include "../cpu_attention.hpp"
#include "cpu_merge.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"

// (m, l, o) partials of a split's 8-32 chunks, bf16 out.
KC_KERNEL("attention/merge/mlo_bf16", cpu) {
  return kc::attention::merge(kc::attention::Partials::mlo, kc::DType::bf16)
      .served({{"rows", {5}}, {"q_heads", {4}}, {"chunks", {8, 32}}, {"d", {64}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) { kc::attention_cpu::merge<kc::bf16>(b, true, false, false); });
}

// (o, lse) partials in base 2 under the stated empty-row rule, fp32 out.
KC_KERNEL("attention/merge/lse2_f32", cpu) {
  kc::attention::Steps st;
  st.empty = kc::attention::Empty::zero;
  st.base = kc::attention::LseBase::two;
  return kc::attention::merge(kc::attention::Partials::lse, kc::DType::f32, st)
      .served({{"rows", {5}}, {"q_heads", {4}}, {"chunks", {8, 32}}, {"d", {128}}})
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["chunks"] + 1); }, 1)
      .ulp("exp2f", 1)
      .ulp("log2f", 1)
      .launch([](const kc::Buffers& b) { kc::attention_cpu::merge<float>(b, false, true, true); });
}
