// Greedy and the top-k / top-p draw on the CPU (kc/families/sampling.hpp), in fp32, with the fault
// its control plants: a draw that never reaches the last kept bucket.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <kc/families/sampling.hpp>
#include <kc/numeric.hpp>
#include <kc/registry.hpp>

namespace sampling_cpu {

// The first NaN, else the lowest id of the largest.
template <class T> void greedy(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], vocab = b.shape()["vocab"];
  const T* x = b.in<T>("logits");
  int32_t* id = b.out<int32_t>("id");
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    float bv = NAN;
    for (int64_t c = 0; c < vocab; ++c) {
      float v;
      if constexpr (std::is_same_v<T, float>) v = x[r * vocab + c]; else v = kc::from_bf16(x[r * vocab + c]);
      if (std::isnan(v)) { best = c; break; }
      if (c == 0 || v > bv) best = c, bv = v;
    }
    id[r] = int32_t(best);
  }
}

inline void draw(const kc::Buffers& b, int64_t k, bool skip_last) {
  const int64_t rows = b.shape()["rows"], vocab = b.shape()["vocab"], kk = std::min(k, vocab);
  const float *p = b.in<float>("p"), *u = b.in<float>("u"), *tp = b.in<float>("top_p");
  int32_t* id = b.out<int32_t>("id");
  std::vector<int32_t> ids(static_cast<size_t>(vocab));
  std::vector<float> c(static_cast<size_t>(kk));
  for (int64_t r = 0; r < rows; ++r) {
    const float* w = p + r * vocab;
    std::iota(ids.begin(), ids.end(), 0);
    std::partial_sort(ids.begin(), ids.begin() + kk, ids.end(),
                      [&](int32_t i, int32_t j) { return w[i] > w[j] || (w[i] == w[j] && i < j); });
    float run = 0;
    for (int64_t j = 0; j < kk; ++j) c[size_t(j)] = run += w[ids[size_t(j)]];
    const float limit = tp[r] * c[size_t(kk - 1)];
    int64_t n = 1;
    while (n < kk && c[size_t(n - 1)] < limit) ++n;
    const float target = u[r] * c[size_t(n - 1)];
    const int64_t last = skip_last && n > 1 ? n - 2 : n - 1;
    int64_t j = 0;
    while (j < last && !(c[size_t(j)] > target)) ++j;
    id[r] = ids[size_t(j)];
  }
}

inline kc::Entry greedy_entry(kc::DType t) {
  return kc::sampling::greedy(t).entry().served({{"rows", {1, 4}}, {"vocab", {100, 1000}}});
}
// Top-50 from vocabularies of 64 and 1000 (the CPU's; the CUDA entries serve 256k).
inline kc::Entry draw_entry() {
  return kc::sampling::draw(50).entry().served({{"rows", {1, 16, 64}}, {"vocab", {64, 1000}}});
}

}  // namespace sampling_cpu
