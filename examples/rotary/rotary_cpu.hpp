// The rotary kernel on the CPU: a scalar loop in fp32, each product rounded to `products` first (f32:
// the right kernel; bf16: the planted bug).
#pragma once
#include <kc/numeric.hpp>
#include <kc/rig.hpp>

#include "rotary.hpp"

namespace rope {

struct Dims {
  int64_t tokens, heads, kv, dim;
};
inline Dims dims_of(const kc::Shape& s) { return {s["tokens"], s["heads"], s["kv"], s["dim"]}; }

inline void rotate_cpu(const kc::Buffers& b, const char* in, const char* out, int64_t heads,
                       kc::DType products = kc::DType::f32) {
  const Dims d = dims_of(b.shape());
  const int64_t half = d.dim / 2;
  const kc::bf16* x = b.in<kc::bf16>(in);
  kc::bf16* y = b.out<kc::bf16>(out);
  const float* cache = b.in<float>("cache");
  const int32_t* pos = b.in<int32_t>("positions");
  auto p = [&](float v) { return products == kc::DType::bf16 ? kc::from_bf16(kc::to_bf16(v)) : v; };
  for (int64_t t = 0; t < d.tokens; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < half; ++i) {
        const int64_t a = (t * heads + h) * d.dim + i, bb = a + half;
        const float x0 = kc::from_bf16(x[a]), x1 = kc::from_bf16(x[bb]);
        const float c = cache[pos[t] * d.dim + i], s = cache[pos[t] * d.dim + half + i];
        y[a] = kc::to_bf16(p(x0 * c) - p(x1 * s));
        y[bb] = kc::to_bf16(p(x1 * c) + p(x0 * s));
      }
}

inline void rotate_all(const kc::Buffers& b, kc::DType products = kc::DType::f32) {
  const Dims d = dims_of(b.shape());
  rotate_cpu(b, "q", "q_out", d.heads, products);
  rotate_cpu(b, "k", "k_out", d.kv, products);
}

}  // namespace rope
