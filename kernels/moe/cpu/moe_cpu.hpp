// The MoE router and combine on the CPU (kc/families/moe.hpp), with the faults their controls plant.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include <kc/families/moe.hpp>
#include <kc/numeric.hpp>
#include <kc/registry.hpp>

namespace moe_cpu {

inline float load(const float* p, int64_t i) { return p[i]; }
inline float load(const kc::bf16* p, int64_t i) { return kc::from_bf16(p[i]); }
inline void store(float* p, int64_t i, float v) { p[i] = v; }
inline void store(kc::bf16* p, int64_t i, float v) { p[i] = kc::to_bf16(v); }

enum class Fault { none, ties_high, nan_number, renorm_all, perm_repeat, drop_last };

// a above b in the ranking: NaN above everything (first NaN first), then larger, ties keep the lower
// expert (insertion stops at an equal key). The faults rank ties the other way or NaN as a number.
inline bool above(float a, float b, Fault f) {
  if (f == Fault::nan_number) return a > b;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  return f == Fault::ties_high ? a >= b : a > b;
}

inline void route(const kc::Buffers& b, kc::moe::Route r, Fault fault) {
  const int64_t tokens = b.shape()["tokens"], experts = b.shape()["experts"], k = r.k;
  const float* x = b.in<float>("logits");
  const float* bias = r.bias ? b.in<float>("bias") : nullptr;
  int32_t* ids = b.out<int32_t>("ids");
  float* w = b.out<float>("weights");
  const bool sig = r.score == kc::moe::Score::sigmoid;
  std::vector<float> key(static_cast<size_t>(experts));
  for (int64_t t = 0; t < tokens; ++t) {
    const float* xt = x + t * experts;
    for (int64_t e = 0; e < experts; ++e) key[size_t(e)] = bias ? 1.f / (1.f + std::exp(-xt[e])) + bias[e] : xt[e];
    int32_t* id = ids + t * k;
    int64_t n = 0;
    for (int64_t e = 0; e < experts; ++e) {  // insertion into the kept k
      int64_t at = n;
      while (at > 0 && above(key[size_t(e)], key[size_t(id[at - 1])], fault)) --at;
      if (at >= k) continue;
      for (int64_t m = std::min(n, k - 1); m > at; --m) id[m] = id[m - 1];
      id[at] = int32_t(e);
      n = std::min(n + 1, k);
    }
    // Weights: renormalised over the k picked (the fault: over every expert).
    const int64_t over = fault == Fault::renorm_all ? experts : k;
    auto pick = [&](int64_t j) { return fault == Fault::renorm_all ? xt[j] : xt[id[j]]; };
    const float m = xt[id[0]];
    auto score = [&](float v) { return sig ? 1.f / (1.f + std::exp(-v)) : std::exp(v - m); };
    float s = 0;
    for (int64_t j = 0; j < over; ++j) s += score(pick(j));
    for (int64_t j = 0; j < k; ++j) w[t * k + j] = score(xt[id[j]]) / s;
  }
  // The expert-major order: a counting sort of the slots t*k + j by expert, stable.
  int32_t* counts = b.out<int32_t>("counts");
  int32_t* offsets = b.out<int32_t>("offsets");
  int32_t* perm = b.out<int32_t>("perm");
  for (int64_t e = 0; e < experts; ++e) counts[e] = 0;
  for (int64_t s = 0; s < tokens * k; ++s) ++counts[ids[s]];
  int32_t at = 0;
  for (int64_t e = 0; e < experts; ++e) offsets[e] = at, at += counts[e];
  std::vector<int32_t> cursor(offsets, offsets + experts);
  for (int64_t s = 0; s < tokens * k; ++s) perm[cursor[size_t(ids[s])]++] = int32_t(s);
  if (fault == Fault::perm_repeat && tokens * k > 1) perm[tokens * k - 1] = perm[0];
}

// y[t,h] = sum_j w[t,j] * e[slot[t,j], h] in fp32 (fma, j ascending), then + shared, rounded once.
template <class R, class O> void combine(const kc::Buffers& b, kc::moe::Combine c, Fault fault) {
  const int64_t tokens = b.shape()["tokens"], hidden = b.shape()["hidden"], k = c.k;
  const R* e = b.in<R>("e");
  const int32_t* slot = b.in<int32_t>("slot");
  const float* w = b.in<float>("w");
  const R* sh = c.shared ? b.in<R>("shared") : nullptr;
  O* y = b.out<O>("y");  // in place: y is shared's memory, each element read before it is written
  const int64_t used = fault == Fault::drop_last ? k - 1 : k;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < hidden; ++h) {
      float acc = 0;
      for (int64_t j = 0; j < used; ++j) acc = std::fma(w[t * k + j], load(e, int64_t(slot[t * k + j]) * hidden + h), acc);
      if (sh) acc += load(sh, t * hidden + h);
      store(y, t * hidden + h, acc);
    }
}

// The entries' envelopes: 64 to 256 experts; a prefill's tokens and a decode's.
inline kc::Entry route_entry(kc::moe::Route r) {
  return kc::moe::route_formula(r)
      .entry()
      .served({{"tokens", {1, 7, 64}}, {"experts", {64, 256}}})
      .range("experts", 64, 64)
      .sums(kc::DType::f32, [k = r.k](const kc::Shape&) { return double(k); })  // one chain of k
      .ulp("expf", 1)
      .hidden("k exp terms in [0, 1]: an fp16 sum errs by about 2^-11, the weights' bound is near 2^-18");
}

inline kc::Entry combine_entry(kc::moe::Combine c, bool in_place) {
  kc::Entry e = kc::moe::combine_formula(c)
                    .entry()
                    .served({{"tokens", {1, 5}}, {"hidden", {64, 160}}, {"slots", {8, 40}}})
                    .sums(kc::DType::f32, [k = c.k](const kc::Shape&) { return double(k); })
                    .hidden("a bf16 output of k products: its rounding hides a bf16 sum's miss (fp16 replays overflow)");
  if (in_place) return std::move(e).in_place("y", "shared");
  return e;
}

}  // namespace moe_cpu
