// Rounding-point intervals: an fp32 kernel that rounds to bf16 where the formula says lies inside
// every output's interval; one that skips any single rounding point that changes values is caught.
#include <cmath>

#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;

float bf(float v) { return kc::from_bf16(kc::to_bf16(v)); }

// Counts outputs outside [lo, hi] after writing the kernel's y into the case.
template <class Kernel> size_t outside(const kc::Entry& e, kc::Case& c, Kernel k) {
  k(c);
  size_t bad = 0;
  for (const auto& ex : e.rig.reference(c)) {
    auto got = values(c, ex.name);
    for (size_t i = 0; i < got.size(); ++i)
      if (!(got[i] >= ex.lo[i] && got[i] <= ex.hi[i])) ++bad;
  }
  return bad;
}

// GeGLU in fp32 with a bf16 rounding at every point except `skip` (-1: none).
void geglu_kernel(kc::Case& c, int skip) {
  auto g = values(c, "g"), u = values(c, "u");
  auto r = [&](int point, float v) { return point == skip ? v : bf(v); };
  for (size_t i = 0; i < g.size(); ++i) {
    float gv = float(g[i]);
    float a = r(0, gv * float(M_SQRT1_2));
    float e = r(1, std::erf(a));
    float p = r(2, 1.0f + e);
    float h = r(3, 0.5f * gv);
    float gl = r(4, h * p);
    set(c, "y", i, bf(gl * float(u[i])));
  }
}

void swiglu_kernel(kc::Case& c, int skip) {
  auto g = values(c, "g"), u = values(c, "u");
  auto r = [&](int point, float v) { return point == skip ? v : bf(v); };
  for (size_t i = 0; i < g.size(); ++i) {
    float gv = float(g[i]);
    float ex = r(0, std::exp(-gv));
    float d = r(1, 1.0f + ex);
    float s = r(2, 1.0f / d);
    float si = r(3, gv * s);
    set(c, "y", i, bf(si * float(u[i])));
  }
}

TEST(RowsInterval, GegluInsideAndEachSkippedPointCaught) {
  auto e = kc::rows::geglu();
  for (uint64_t seed : {1, 2, 3}) {
    auto c = prepared(e, shape(16, 1024), {}, seed);
    EXPECT_EQ(outside(e, c, [](kc::Case& k) { geglu_kernel(k, -1); }), 0u) << "seed " << seed;
    for (int skip : {0, 1, 2, 4}) EXPECT_GT(outside(e, c, [&](kc::Case& k) { geglu_kernel(k, skip); }), 0u) << skip;
    // 0.5 g is exact in bf16: skipping that rounding changes nothing, and nothing is flagged.
    EXPECT_EQ(outside(e, c, [](kc::Case& k) { geglu_kernel(k, 3); }), 0u);
  }
}

TEST(RowsInterval, SwigluInsideAndEachSkippedPointCaught) {
  auto e = kc::rows::swiglu();
  for (uint64_t seed : {1, 2, 3}) {
    auto c = prepared(e, shape(16, 1024), {}, seed);
    EXPECT_EQ(outside(e, c, [](kc::Case& k) { swiglu_kernel(k, -1); }), 0u) << "seed " << seed;
    for (int skip : {0, 1, 2, 3}) EXPECT_GT(outside(e, c, [&](kc::Case& k) { swiglu_kernel(k, skip); }), 0u) << skip;
  }
}

// add_rms_norm in fp32: h = bf16(x + r); the norm reads h (rounded) or x + r in fp32 (once-rounded).
void add_norm_kernel(kc::Case& c, bool read_h) {
  const auto& s = c.shape();
  int64_t rows = s["rows"], cols = s["cols"];
  auto x = values(c, "x"), r = values(c, "r"), w = values(c, "w");
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<float> v(static_cast<size_t>(cols));
    float sum = 0;
    for (int64_t j = 0; j < cols; ++j) {
      size_t i = size_t(row * cols + j);
      float fs = float(x[i]) + float(r[i]);
      float h = bf(fs);
      set(c, "h", i, h);
      v[size_t(j)] = read_h ? h : fs;
      sum += v[size_t(j)] * v[size_t(j)];
    }
    float inv = 1.0f / std::sqrt(sum / float(cols) + 1e-6f);
    for (int64_t j = 0; j < cols; ++j) set(c, "y", size_t(row * cols + j), bf(v[size_t(j)] * inv * float(w[size_t(j)])));
  }
}

TEST(RowsInterval, AddRmsNormBothFormsAndTheirSwaps) {
  auto rounded = with_sums(kc::rows::add_rms_norm(kc::rows::Residual::rounded), 6);
  auto once = with_sums(kc::rows::add_rms_norm(kc::rows::Residual::once_rounded), 6);
  for (uint64_t seed : {1, 2}) {
    auto c = prepared(rounded, shape(16, 1024), {}, seed);
    EXPECT_EQ(outside(rounded, c, [](kc::Case& k) { add_norm_kernel(k, true); }), 0u);
    EXPECT_GT(outside(rounded, c, [](kc::Case& k) { add_norm_kernel(k, false); }), 0u);  // skips h's point
    auto o = prepared(once, shape(16, 1024), {}, seed);
    EXPECT_EQ(outside(once, o, [](kc::Case& k) { add_norm_kernel(k, false); }), 0u);
    EXPECT_GT(outside(once, o, [](kc::Case& k) { add_norm_kernel(k, true); }), 0u);  // rounds where it should not
  }
}

}  // namespace
