// Layer norm in one pass, through the runner on the CPU: Welford's update in one fp32 chain passes
// every gate against the family's Welford form (its proven interval; its stated rule for a row
// holding an infinity, where the update gives a NaN mean), with its statistics or without and with
// bf16 weights; the same kernel with the textbook one-pass variance, E[x^2] - E[x]^2, fails gate 3.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "kc/backend.hpp"
#include "kc/families/rows.hpp"
#include "kc/numeric.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "run_cpu_entry.hpp"

namespace {

using kc::DType;
using kc::Gate;
using kc::Status;
constexpr float kEps = 1e-5f;

template <class W> float ld(const W* p, int64_t i) {
  if constexpr (std::is_same_v<W, float>) return p[i]; else return kc::from_bf16(p[i]);
}

// One row at a time, one chain: Welford's update (or sum x and sum x^2), then rstd and y in fp32.
template <bool welford, bool stats, class W> void layer_norm(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], n = b.shape()["cols"];
  const float* x = b.in<float>("x");
  const W* w = b.in<W>("w");
  const W* bias = b.in<W>("b");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float m = 0, m2 = 0;
    if constexpr (welford) {
      for (int64_t j = 0; j < n; ++j) {
        const float d = xr[j] - m;
        m += d / float(j + 1);
        m2 += d * (xr[j] - m);
      }
    } else {
      for (int64_t j = 0; j < n; ++j) m += xr[j], m2 += xr[j] * xr[j];
      m /= float(n);
      m2 = m2 - float(n) * m * m;
      m2 = m2 < 0 ? 0.0f : m2;
    }
    const float rs = 1.0f / std::sqrt(m2 / float(n) + kEps);
    for (int64_t j = 0; j < n; ++j) y[r * n + j] = (xr[j] - m) * rs * ld(w, j) + ld(bias, j);
    if constexpr (stats) b.out<float>("mean")[r] = m, b.out<float>("rstd")[r] = rs;
  }
}

kc::Entry welford_entry(bool stats, DType weights) {
  kc::rows::LayerNormForm form;
  form.variance = kc::rows::LayerNormForm::Variance::welford;
  form.stats = stats;
  form.weights = weights;
  // After the sums: / n, + eps, sqrtf, 1 / ., * rstd, * w (the family rounds + b itself).
  return kc::rows::layer_norm(DType::f32, DType::f32, kEps, form)
      .served({{"rows", {1, 5}}, {"cols", {16, 64, 128}}})
      .sums(DType::f32, [](const kc::Shape& s) { return double(s["cols"]); }, 6);
}

}  // namespace

KC_KERNEL("welford/layer_norm/stats", cpu) { return welford_entry(true, DType::f32).launch(layer_norm<true, true, float>); }
KC_KERNEL("welford/layer_norm/no_stats_bf16_weights", cpu) {
  return welford_entry(false, DType::bf16).launch(layer_norm<true, false, kc::bf16>);
}
KC_KERNEL("welford/layer_norm/textbook_one_pass", cpu) {
  return welford_entry(true, DType::f32).launch(layer_norm<false, true, float>);
}

namespace {

std::map<Gate, kc::GateEvent> run(const std::string& name) { return kc_test::run_cpu_entry(name); }

TEST(Welford, ACorrectOnePassUpdatePassesEveryGate) {
  for (const char* name : {"welford/layer_norm/stats", "welford/layer_norm/no_stats_bf16_weights"}) {
    auto v = run(name);
    for (Gate g : {Gate::nonfinite, Gate::repeat, Gate::shapes, Gate::sums})
      EXPECT_EQ(v[g].status, Status::pass) << name << " " << kc::gate_name(g) << ": " << v[g].detail;
  }
}

TEST(Welford, TheTextbookOnePassVarianceFailsGateThree) {
  auto v = run("welford/layer_norm/textbook_one_pass");
  EXPECT_EQ(v[Gate::shapes].status, Status::fail) << v[Gate::shapes].detail;
  EXPECT_EQ(v[Gate::shapes].why, "interval") << v[Gate::shapes].detail;
}

}  // namespace
