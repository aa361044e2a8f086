// The merge of a split's partials on the CPU (attention.hpp's merge), with the planted fault the
// merge control switches on.
#pragma once
#include <cmath>
#include <vector>

#include "../cpu_attention.hpp"

namespace kc::attention_cpu {

// mlo: (part_m, part_l, part_o); else (part_lse, part_o), l = 1. drop_scale: the last chunk's
// partial added without its scale exp(m_c - max) (a control).
template <class O>
void merge(const Buffers& b, bool mlo, bool zero_rule, bool base2, bool drop_scale = false) {
  const Shape& sh = b.shape();
  const int64_t n = sh["rows"] * sh["q_heads"], C = sh["chunks"], d = sh["d"];
  const float* pm = b.in<float>(mlo ? "part_m" : "part_lse");
  const float* pl = mlo ? b.in<float>("part_l") : nullptr;
  const float* po = b.in<float>("part_o");
  O* out = b.out<O>("out");
  float* lse = b.out<float>("lse");
  const auto ex = [base2](float x) { return base2 ? std::exp2(x) : std::exp(x); };
  parallel_for(n, [&](int64_t i0, int64_t i1) {
    std::vector<float> acc(static_cast<size_t>(d));
    for (int64_t i = i0; i < i1; ++i) {
      float M = -INFINITY;
      bool nan = false;
      for (int64_t c = 0; c < C; ++c) {
        const float x = pm[i * C + c];
        if (std::isnan(x)) nan = true;
        else M = std::max(M, x);
      }
      if (nan) M = NAN;
      const float c0 = M == -INFINITY ? 0.f : M;
      float L = 0;
      std::fill(acc.begin(), acc.end(), 0.f);
      for (int64_t c = 0; c < C; ++c) {
        const int64_t at = i * C + c;
        const float w = drop_scale && c == C - 1 ? 1.f : ex(pm[at] - c0);
        L += w * (mlo ? pl[at] : 1.f);
        for (int64_t t = 0; t < d; ++t) acc[size_t(t)] += w * po[at * d + t];
      }
      const bool none = zero_rule && L == 0;
      for (int64_t t = 0; t < d; ++t) store(out, i * d + t, none ? 0.f : acc[size_t(t)] / L);
      lse[i] = none ? -INFINITY : c0 + (base2 ? std::log2(L) : std::log(L));
    }
  });
}

}  // namespace kc::attention_cpu
