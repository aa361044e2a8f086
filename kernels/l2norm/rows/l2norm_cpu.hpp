// L2-norm rows on the CPU (kc::l2norm's formula in fp32): h = bf16(x + r) where a residual is
// added, the sum of squares in one serial loop (depth cols), y = v * rsqrt(ss + eps). `part` < 1
// sums only the row's first part of the columns: the control's fault.
#pragma once
#include <cmath>
#include <vector>

#include <kc/families/l2norm.hpp>
#include <kc/numeric.hpp>
#include <kc/registry.hpp>

namespace kc::l2norm_cpu {

inline void rows(const kc::Buffers& b, kc::l2norm::Residual res, float eps = 1e-6f, int64_t part = 1) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const kc::bf16* x = b.in<kc::bf16>("x");
  const bool add = res == kc::l2norm::Residual::rounded;
  const kc::bf16* r = add ? b.in<kc::bf16>("r") : nullptr;
  kc::bf16* h = add ? b.out<kc::bf16>("h") : nullptr;
  kc::bf16* y = b.out<kc::bf16>("y");
  std::vector<float> v(static_cast<size_t>(cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t c = 0; c < cols; ++c) {
      v[size_t(c)] = kc::from_bf16(x[i * cols + c]);
      if (add) {
        h[i * cols + c] = kc::to_bf16(v[size_t(c)] + kc::from_bf16(r[i * cols + c]));
        v[size_t(c)] = kc::from_bf16(h[i * cols + c]);
      }
    }
    float ss = 0;
    for (int64_t c = 0; c < cols / part; ++c) ss += v[size_t(c)] * v[size_t(c)];
    const float s = 1.0f / std::sqrt(ss + eps);
    for (int64_t c = 0; c < cols; ++c) y[i * cols + c] = kc::to_bf16(v[size_t(c)] * s);
  }
}

inline kc::Entry envelope(kc::Entry&& e) {
  return std::move(e)
      .served({{"rows", {1, 7}}, {"cols", {64, 1000}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]); })
      .ulp("rsqrtf", 2)
      .hidden(kc::l2norm::kHiddenSums);
}

}  // namespace kc::l2norm_cpu
