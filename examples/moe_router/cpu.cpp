// The MoE router on the CPU: a top-8 by insertion (NaN first, ties to the lower expert), then the
// softmax over the 8 in fp32. Its controls skip NaN logits (reads them as -Inf: gate 1's rule) and
// keep the sum of the 8 exps in fp16 (gate 4).
#include <cmath>

#include <kc/numeric.hpp>
#include <kc/registry.hpp>

#include "moe_router.hpp"

namespace {

bool above(float a, float b) { return std::isnan(a) ? !std::isnan(b) : !std::isnan(b) && a > b; }

void route(const kc::Buffers& b, bool skip_nan, bool half_sum = false) {
  const int64_t tokens = b.shape()["tokens"], experts = b.shape()["experts"], k = moe::kTop;
  const float* x = b.in<float>("logits");
  int32_t* ids = b.out<int32_t>("ids");
  float* w = b.out<float>("weights");
  for (int64_t t = 0; t < tokens; ++t) {
    int32_t* id = ids + t * k;
    auto v = [&](int64_t j) { float f = x[t * experts + j]; return skip_nan && std::isnan(f) ? -INFINITY : f; };
    int64_t n = 0;
    for (int64_t j = 0; j < experts; ++j) {  // insertion into the kept k, stable: ties keep the lower id
      int64_t at = n < k ? n : k;
      while (at > 0 && above(v(j), v(id[at - 1]))) --at;
      if (at >= k) continue;
      for (int64_t m = std::min(n, k - 1); m > at; --m) id[m] = id[m - 1];
      id[at] = int32_t(j);
      n = std::min(n + 1, k);
    }
    const float m = x[t * experts + id[0]];
    float e[moe::kTop], s = 0;
    for (int64_t j = 0; j < k; ++j) {
      s += (e[j] = std::exp(x[t * experts + id[j]] - m));
      if (half_sum) s = kc::from_f16(kc::to_f16(s));  // each partial sum stored as fp16
    }
    for (int64_t j = 0; j < k; ++j) w[t * k + j] = e[j] / s;
  }
}

}  // namespace

KC_KERNEL("examples/moe_router/f32", cpu) { return moe::contract().launch([](const kc::Buffers& b) { route(b, false); }); }

KC_CONTROL("examples/moe_router/ctl_nan_skipped", cpu) {
  return moe::contract()
      .control(kc::Gate::nonfinite, kc::Why::rule_broken)
      .note("a NaN logit is read as -Inf, never chosen")
      .launch([](const kc::Buffers& b) { route(b, true); });
}

KC_CONTROL("examples/moe_router/ctl_half_sum", cpu) {
  return moe::contract()
      .control(kc::Gate::sums, kc::Why::bound)
      .note("the 8 exps summed in fp16")
      .launch([](const kc::Buffers& b) { route(b, false, true); });
}
