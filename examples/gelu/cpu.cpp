// The op-by-op bf16 GELU on the CPU. Its control keeps erf's result in fp32 (a rounding point
// missed), which gate 3's intervals find.
#include <cmath>

#include <kc/numeric.hpp>
#include <kc/registry.hpp>

#include "gelu.hpp"

namespace {

float bf(float v) { return kc::from_bf16(kc::to_bf16(v)); }

void gelu_rows(const kc::Buffers& b, bool erf_point) {
  const int64_t n = b.shape()["rows"] * b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  kc::bf16* y = b.out<kc::bf16>("y");
  for (int64_t i = 0; i < n; ++i) {
    const float v = kc::from_bf16(x[i]), e = std::erf(bf(v * float(M_SQRT1_2)));
    y[i] = kc::to_bf16(bf(0.5f * v) * bf(1.0f + (erf_point ? bf(e) : e)));
  }
}

}  // namespace

KC_KERNEL("examples/gelu/bf16", cpu) { return gelu::contract().launch([](const kc::Buffers& b) { gelu_rows(b, true); }); }

KC_CONTROL("examples/gelu/ctl_erf_unrounded", cpu) {
  return gelu::contract()
      .control(kc::Gate::shapes, kc::Why::interval)
      .note("erf's result kept in fp32: the rounding point after it missed")
      .launch([](const kc::Buffers& b) { gelu_rows(b, false); });
}
