// Rotary position embedding (NeoX halves) of queries and keys, bf16 in and out: for pair i < d/2 of a
// head x at a token whose position picks row p of an fp32 cos/sin cache,
//   y[i] = x[i] c - x[i + d/2] s,   y[i + d/2] = x[i + d/2] c + x[i] s,   c = cache[p, i], s = cache[p, d/2 + i].
// The formula is the contract: the harness derives the bound (where y cancels, the products' roundings
// on the terms), fills positions as ids (repeated, the cache's last row) and plants NaN and Inf in q, k.
#pragma once
#include <cmath>

#include <kc/formula.hpp>

namespace rope {

inline constexpr int64_t kMaxPos = 4096;  // cache rows; the last is pi/4 with s one fp32 ulp above c: y cancels

inline double cache(const kc::Shape& s, int64_t at) {  // cos(p t_i), sin(p t_i), t_i = 10000^(-2i/d)
  const int64_t d = s["dim"], p = at / d, i = at % d % (d / 2);
  const double a = p == kMaxPos - 1 ? M_PI / 4 : double(p) * std::pow(10000.0, -2.0 * double(i) / double(d));
  if (p == kMaxPos - 1 && at % d >= d / 2) return std::nextafter(float(std::cos(a)), 1.0f);
  return at % d < d / 2 ? std::cos(a) : std::sin(a);
}

inline auto rotate(const char* in, const char* out) {
  return [=](auto& f) {
    auto x = f.in(in), c = f.row("cache", f.id("positions"));
    for (int64_t i = 0, h = x.size() / 2; i < h; ++i) {
      f.out(out)[i] = x[i] * c[i] - x[i + h] * c[h + i];
      f.out(out)[i + h] = x[i + h] * c[i] + x[i] * c[h + i];
    }
  };
}

inline kc::Entry contract() {
  return kc::formula::Formula()
      .in("cache", kc::DType::f32, {kMaxPos, "dim"}, {.values = cache})
      .ids("positions", {"tokens"}, "cache")
      .in("q", kc::DType::bf16, {"tokens", "heads", "dim"})
      .in("k", kc::DType::bf16, {"tokens", "kv", "dim"})
      .out("q_out", kc::DType::bf16, {"tokens", "heads", "dim"})
      .out("k_out", kc::DType::bf16, {"tokens", "kv", "dim"})
      .each({"tokens", "heads"}, rotate("q", "q_out"))
      .each({"tokens", "kv"}, rotate("k", "k_out"))
      .entry()
      .served({{"tokens", {1, 7, 64}}, {"heads", {4, 16}}, {"kv", {1, 8}}, {"dim", {64, 128}}})
      .range("dim", 2, 2);  // any even head dim
}

}  // namespace rope
