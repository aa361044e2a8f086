// The blocked float64 reference (families/dense/src/ref_gemm.*) against the plain loop it replaces,
// `for k ascending: y += x*w; mag += |x*w|` in double: bit-equal on every kernel set this CPU runs
// (portable, AVX2, AVX-512), on ragged sizes that are not multiples of the register tile or of the
// cache blocks (row blocks of 96, column blocks of 128 to 256, K blocks of 256), on planted NaN and Inf,
// and on gate 4's repeated rows (where the reference evaluates each distinct pair once).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "../../families/dense/src/ref_gemm.hpp"
#include "../ref_isas.hpp"
#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

double wd(bf16 v) { return double(from_bf16(v)); }

void naive(std::span<const bf16> x, std::span<const bf16> w, int64_t M, int64_t N, int64_t K, std::vector<double>& y,
           std::vector<double>& mag) {
  y.assign(size_t(M * N), 0);
  mag.assign(size_t(M * N), 0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0, a = 0;
      for (int64_t k = 0; k < K; ++k) {
        double p = wd(x[m * K + k]) * wd(w[n * K + k]);
        s += p;
        a += std::fabs(p);
      }
      y[m * N + n] = s;
      mag[m * N + n] = a;
    }
}

using ref_isas::expect_same;
using ref_isas::Isas;

TEST_F(Isas, DenseBlockedEqualsThePlainLoopOnRaggedSizes) {
  std::mt19937_64 g(17);
  for (auto set : sets()) {
    fam::force_ref_isa(set);
    for (int64_t M : {1, 5, 97, 200})
      for (int64_t N : {1, 7, 17, 130, 259})
        for (int64_t K : {1, 3, 127, 129, 300}) {
          std::vector<bf16> x(size_t(M * K)), w(size_t(N * K));
          // Spread magnitudes, both signs, some zeros: sums that round differently in another order.
          auto val = [&] {
            uint64_t z = g();
            if (z % 17 == 0) return to_bf16(0.0f);
            return bf16{uint16_t(((z >> 63) << 15) | (uint32_t(127 - 20 + (z >> 8) % 40) << 7) | (z & 0x7f))};
          };
          for (auto& v : x) v = val();
          for (auto& v : w) v = val();
          std::vector<double> y(size_t(M * N)), mag(y.size()), ny, nmag;
          fam::ref_dense(x.data(), w.data(), M, N, K, y.data(), mag.data());
          naive(x, w, M, N, K, ny, nmag);
          std::string at = std::string(fam::ref_isa_name()) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                           std::to_string(K);
          expect_same(y, ny, "y " + at);
          expect_same(mag, nmag, "mag " + at);
        }
  }
}

// Large enough that a task's row chunk holds several row blocks of 96 (on a 2- to 4-core host),
// each added into the same outputs K block by K block.
TEST_F(Isas, DenseBlockedEqualsThePlainLoopAcrossRowChunks) {
  const int64_t M = 800, N = 600, K = 300;
  std::mt19937_64 g(3);
  std::vector<bf16> x(size_t(M * K)), w(size_t(N * K));
  for (auto& v : x) v = bf16{uint16_t((g() & 0x807f) | (uint32_t(120 + g() % 16) << 7))};
  for (auto& v : w) v = bf16{uint16_t((g() & 0x807f) | (uint32_t(120 + g() % 16) << 7))};
  std::vector<double> ny, nmag;
  naive(x, w, M, N, K, ny, nmag);
  for (auto set : sets()) {
    fam::force_ref_isa(set);
    std::vector<double> y(size_t(M * N)), mag(y.size());
    fam::ref_dense(x.data(), w.data(), M, N, K, y.data(), mag.data());
    expect_same(y, ny, std::string("y ") + fam::ref_isa_name());
    expect_same(mag, nmag, std::string("mag ") + fam::ref_isa_name());
  }
}

TEST_F(Isas, DenseFamilyReferenceEqualsThePlainLoopForEveryFill) {
  Entry e = dense::projection(DType::f32);
  for (auto set : sets()) {
    fam::force_ref_isa(set);
    const Shape s{{"m", 19}, {"n", 133}, {"k", 261}};
    std::vector<Fill> fills = {Fill{FillKind::random}, Fill{FillKind::sums}};
    for (int p = 0; p < int(e.rig.plants.size()); ++p) fills.push_back(Fill{FillKind::nonfinite, p, 130});
    for (const Fill& f : fills) {
      Case c(s, f, 23);
      e.rig.prepare(c);
      auto exp = e.rig.reference(c);
      std::vector<double> ny, nmag;
      naive(c.get<bf16>("x"), c.get<bf16>("w"), 19, 133, 261, ny, nmag);
      std::string at = std::string(fam::ref_isa_name()) + " fill " + std::to_string(int(f.kind)) + " plant " +
                       std::to_string(f.plant);
      expect_same(exp[0].want, ny, "y " + at);
      if (f.kind == FillKind::nonfinite)  // gate 1 compares classes: no magnitudes are built
        EXPECT_TRUE(exp[0].mag.empty()) << at;
      else
        expect_same(exp[0].mag, nmag, "mag " + at);
    }
  }
}

// Gate 4's repeated rows, then one row changed: the reference must notice and evaluate every row.
TEST(DenseReference, RepeatedRowsAreCheckedNotAssumed) {
  Entry e = dense::projection(DType::f32);
  Case c(Shape{{"m", 7}, {"n", 11}, {"k", 80}}, Fill{FillKind::sums}, 5);
  e.rig.prepare(c);
  auto x = c.get_mut<bf16>("x");
  x[5 * 80 + 40] = to_bf16(3.0f);  // row 5 no longer equals row 1, its pattern
  auto exp = e.rig.reference(c);
  std::vector<double> ny, nmag;
  naive(c.get<bf16>("x"), c.get<bf16>("w"), 7, 11, 80, ny, nmag);
  expect_same(exp[0].want, ny, "y");
  expect_same(exp[0].mag, nmag, "mag");
}

}  // namespace
