// The contract of a formula no family has, built from the public blocks (kc/families/blocks.hpp):
// rotary position embedding, NeoX style (rotate halves), of queries and keys in one launch — two
// outputs. For a token at position p, head dim d, pair i < d/2 of a head x:
//   y[i]       = x[i] c - x[i + d/2] s,   y[i + d/2] = x[i + d/2] c + x[i] s
// with c = cache[p, i], s = cache[p, d/2 + i] from an fp32 cos/sin cache [kMaxPos, d] (as vLLM's
// rotary kernels read theirs). q [tokens, heads, d] and k [tokens, heads / 4, d] (4 query heads per
// key head) are bf16, and so are q_out and k_out; positions are int32 [tokens].
//
// The error model: a rotation cancels (y[i] may be far smaller than its terms), so the fp32 steps'
// errors are stated on the terms' magnitude, Expected::scale = |x[i] c| + |x[i + d/2] s|, not on |y|;
// the contract's .ops(3) counts the two products and the sum. The cache's last row is the cancelling
// case: c and s one fp32 ulp apart at every pair (an angle of pi/4), read by every fourth token (from
// the second) with x[i + d/2] = x[i] on a quarter of its pairs, so y is near 2^-24 of its terms and
// fp32's products err by as much as y itself: a model on |y| alone fails a correct kernel there, and
// a kernel with bf16 products fails this one.
#pragma once
#include <cmath>
#include <cstdint>

#include <kc/families/blocks.hpp>
#include <kc/spec.hpp>

namespace rope {

inline constexpr int64_t kMaxPos = 4096;  // cache rows
inline constexpr int kGroup = 4;          // query heads per key head
inline constexpr int64_t kCancelPos = kMaxPos - 1;  // the cancelling row
inline bool cancels(int64_t token) { return token % 4 == 1; }

struct Dims {
  int64_t tokens, heads, kv, dim;
};
inline Dims dims_of(const kc::Shape& s) {
  return {s["tokens"], s["heads"], s["heads"] / kGroup, s["dim"]};
}

// cos(p θ_i), sin(p θ_i), θ_i = 10000^(-2i/d), in double, rounded to fp32 (the cache's values are
// inputs: the reference reads them as stored).
inline void fill_cache(kc::blocks::Buf& cache, int64_t dim) {
  const int64_t half = dim / 2;
  for (int64_t p = 0; p < kMaxPos; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double a = double(p) * std::pow(10000.0, -2.0 * double(i) / double(dim));
      cache.set(size_t(p * dim + i), std::cos(a));
      cache.set(size_t(p * dim + half + i), std::sin(a));
    }
  const float c = float(std::sqrt(0.5));
  for (int64_t i = 0; i < half; ++i) {
    cache.set(size_t(kCancelPos * dim + i), c);
    cache.set(size_t(kCancelPos * dim + half + i), std::nextafter(c, 1.0f));
  }
}

// One operand (q or k): spread values, the cancelling pairs, then gate 1's plant.
inline void fill_heads(kc::blocks::Buf& x, kc::Case& c, const std::vector<kc::plants::Plant>& plants,
                       const char* name, int64_t heads) {
  using namespace kc::blocks;
  const Dims d = dims_of(c.shape());
  const int64_t half = d.dim / 2;
  Rng r = rng_for(c, name);
  fill_spread(x, r, -4, 3);
  for (int64_t t = 0; t < d.tokens; ++t)
    if (cancels(t))
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < half; i += 4) {
          const size_t at = size_t((t * heads + h) * d.dim + i);
          x.set(at + size_t(half), x.get(at));
        }
  // Gate 1: one plant in the middle token's row of this operand ([tokens x heads * dim]).
  plant_if(x, c, plants, name, kc::blocks::Dims{d.tokens, heads * d.dim}, true);
}

// The float64 rotation of one operand, with each output's scale.
inline kc::Expected rotate(const kc::Case& c, const char* in, const char* out, int64_t heads) {
  const Dims d = dims_of(c.shape());
  const int64_t half = d.dim / 2;
  auto x = kc::blocks::read(c, in), cache = kc::blocks::read(c, "cache"), pos = kc::blocks::read(c, "positions");
  kc::Expected e;
  e.name = out;
  e.want.resize(x.size());
  e.scale.resize(x.size());
  for (int64_t t = 0; t < d.tokens; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < half; ++i) {
        const size_t a = size_t((t * heads + h) * d.dim + i), b = a + size_t(half);
        const size_t p = size_t(pos[size_t(t)]) * size_t(d.dim);
        const double cs = cache[p + size_t(i)], sn = cache[p + size_t(half + i)];
        e.want[a] = x[a] * cs - x[b] * sn;
        e.want[b] = x[b] * cs + x[a] * sn;
        e.scale[a] = std::fabs(x[a] * cs) + std::fabs(x[b] * sn);
        e.scale[b] = std::fabs(x[b] * cs) + std::fabs(x[a] * sn);
      }
  return e;
}

// The rig, without an envelope or a launch: each contract adds its own.
inline kc::Entry entry() {
  using namespace kc::blocks;
  // Gate 1: NaN, both infinities and NaN bits at the first, middle and last column of q and k;
  // no whole rows (each output reads two values of its own head, not a row).
  static const std::vector<kc::plants::Plant> plants =
      kc::plants::standard({{"q", kc::plants::kNoRows}, {"k", kc::plants::kNoRows}});
  kc::Entry e;
  kc::plants::set(e.rig, plants);
  e.rig.prepare = [](kc::Case& c) {
    const Dims d = dims_of(c.shape());
    if (d.dim % 2 || d.heads % kGroup || d.tokens < 1)
      throw kc::Error("rope: shape " + c.shape().str() + " needs an even dim and heads a multiple of 4");
    Buf cache(c, "cache", kc::DType::f32, size_t(kMaxPos * d.dim), kc::Role::in);
    Buf pos(c, "positions", kc::DType::i32, size_t(d.tokens), kc::Role::in);
    Buf q(c, "q", kc::DType::bf16, size_t(d.tokens * d.heads * d.dim), kc::Role::in);
    Buf k(c, "k", kc::DType::bf16, size_t(d.tokens * d.kv * d.dim), kc::Role::in);
    Buf(c, "q_out", kc::DType::bf16, q.size(), kc::Role::out);
    Buf(c, "k_out", kc::DType::bf16, k.size(), kc::Role::out);
    fill_cache(cache, d.dim);
    Rng r = rng_for(c, "positions");
    for (int64_t t = 0; t < d.tokens; ++t)
      pos.set_exact(size_t(t), double(cancels(t) ? kCancelPos : r.range(0, kCancelPos - 1)));
    fill_heads(q, c, plants, "q", d.heads);
    fill_heads(k, c, plants, "k", d.kv);
  };
  e.rig.reference = [](const kc::Case& c) {
    const Dims d = dims_of(c.shape());
    return results(rotate(c, "q", "q_out", d.heads), rotate(c, "k", "k_out", d.kv));
  };
  return e;
}

}  // namespace rope
