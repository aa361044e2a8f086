// RoPE with the fused q/k norm on the CPU (kc::rope's formula, op by op in fp32): a head at a time,
// the sum of squares in one serial loop (depth dim), inv_freq the fp32 rounding of the exact value,
// the angle pos * inv_freq in fp32, cosf and sinf. A Fault plants one of the controls' bugs.
#pragma once
#include <cmath>
#include <vector>

#include <kc/families/rope.hpp>

#include "../../common/served.hpp"
#include <kc/numeric.hpp>
#include <kc/registry.hpp>

namespace kc::rope_cpu {

enum class Fault : uint8_t {
  none,
  position_zero,   // every token rotated at position 0
  half_frequency,  // the angle at half its frequency
  pairs_swapped,   // the interleaved pairs (2i, 2i + 1) in the half-split form
  norm_unrounded,  // the normed value kept in fp32: its bf16 rounding point dropped
};

inline float bf(float v) { return kc::from_bf16(kc::to_bf16(v)); }

inline void heads(const kc::Buffers& b, const kc::rope::Form& form, const char* in, const char* w_name,
                  const char* out, int64_t nh, Fault fault) {
  const int64_t tokens = b.shape()["tokens"], d = b.shape()["dim"], h = d / 2;
  const kc::bf16* x = b.in<kc::bf16>(in);
  kc::bf16* y = b.out<kc::bf16>(out);
  const int32_t* pos = b.in<int32_t>("positions");
  const bool table = form.angles == kc::rope::Angles::table;
  const kc::bf16* cos_t = table ? b.in<kc::bf16>("cos") : nullptr;
  const kc::bf16* sin_t = table ? b.in<kc::bf16>("sin") : nullptr;
  const kc::bf16* w = form.norm != kc::rope::Norm::none ? b.in<kc::bf16>(w_name) : nullptr;
  const kc::rope::Pairs pairs = fault == Fault::pairs_swapped ? kc::rope::Pairs::interleaved : form.pairs;
  std::vector<float> inv(static_cast<size_t>(h)), v(static_cast<size_t>(d)), o(static_cast<size_t>(d));
  for (int64_t i = 0; i < h; ++i)
    inv[size_t(i)] = float(kc::rope::inv_freq(i, d, form.theta) * (fault == Fault::half_frequency ? 0.5 : 1.0));
  const float eps = float(form.eps);
  auto norm = [&](std::vector<float>& a) {
    float ss = 0;
    for (int64_t k = 0; k < d; ++k) ss += a[size_t(k)] * a[size_t(k)];
    const float r = 1.0f / std::sqrt(ss / float(d) + eps);
    for (int64_t k = 0; k < d; ++k) {
      const float n = a[size_t(k)] * r;
      a[size_t(k)] = bf((fault == Fault::norm_unrounded ? n : bf(n)) * kc::from_bf16(w[k]));
    }
  };
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t p = fault == Fault::position_zero ? 0 : pos[t];
    for (int64_t j = 0; j < nh; ++j) {
      const kc::bf16* xh = x + (t * nh + j) * d;
      for (int64_t k = 0; k < d; ++k) v[size_t(k)] = kc::from_bf16(xh[k]);
      if (form.norm == kc::rope::Norm::before) norm(v);
      for (int64_t i = 0; i < h; ++i) {
        float c, s;
        if (table) {
          c = kc::from_bf16(cos_t[p * d + i]), s = kc::from_bf16(sin_t[p * d + i]);
        } else {
          const float angle = float(p) * inv[size_t(i)];
          c = std::cos(angle), s = std::sin(angle);
        }
        const int64_t a = kc::rope::first(pairs, i, d), bb = kc::rope::second(pairs, i, d);
        o[size_t(a)] = v[size_t(a)] * c - v[size_t(bb)] * s;
        o[size_t(bb)] = v[size_t(bb)] * c + v[size_t(a)] * s;
      }
      if (form.norm == kc::rope::Norm::after) {
        for (auto& e : o) e = bf(e);
        norm(o);
      }
      for (int64_t k = 0; k < d; ++k) y[(t * nh + j) * d + k] = kc::to_bf16(o[size_t(k)]);
    }
  }
}

inline auto launch(const kc::rope::Form& form, Fault fault = Fault::none) {
  return [form, fault](const kc::Buffers& b) {
    heads(b, form, "q", "q_w", "q_out", b.shape()["heads"], fault);
    heads(b, form, "k", "k_w", "k_out", b.shape()["kv"], fault);
  };
}

// The CPU envelope; the serial sum of squares is a chain of dim.
inline kc::Entry envelope(kc::Entry&& e, const kc::rope::Form& form) {
  kc::served::Served env{{"tokens", {1, 5}}, {"heads", {2, 4}}, {"kv", {1, 2}}, {"dim", {64, 256}}};
  if (form.angles == kc::rope::Angles::table) env.push_back({"table", {64}});  // cos/sin rows
  std::move(e).served(std::move(env));
  if (form.norm != kc::rope::Norm::none)
    std::move(e)
        .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["dim"]); })
        .hidden(kc::rope::kHiddenSums);
  return std::move(e).ulp("sinf", 1).ulp("cosf", 1).ulp("rsqrtf", 2);
}

}  // namespace kc::rope_cpu
