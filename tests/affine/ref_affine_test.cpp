// The blocked float64 affine reference (families/dense/src/ref_gemm.*) against the plain loop it
// replaces (per group: sum x q, sum x, sum |x| q, sum |x| over k ascending; then y += s a + b xs,
// mag += |s| ma + |b| mx): bit-equal for every bit width and group, on every kernel set this CPU
// runs, at sizes that are not multiples of the register tile or the cache blocks (K blocks of 256
// hold 2, 4 or 8 groups; a last block may be short), for every fill, plants included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../../families/dense/src/ref_gemm.hpp"
#include "../ref_isas.hpp"
#include "kc/families/affine.hpp"
#include "kc/numeric.hpp"

namespace {
using namespace kc;

double wd(bf16 v) { return double(from_bf16(v)); }

void naive(const Case& c, int bits, int group, int64_t M, int64_t N, int64_t K, std::vector<double>& y,
           std::vector<double>& mag) {
  auto x = c.get<bf16>("x");
  auto q = c.get<uint32_t>("q");
  auto s = c.get<bf16>("s");
  auto b = c.get<bf16>("b");
  const int64_t G = K / group, wpr = affine::words_per_row(K, bits);
  y.assign(size_t(M * N), 0);
  mag.assign(size_t(M * N), 0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double yy = 0, mm = 0;
      for (int64_t g = 0; g < G; ++g) {
        double a = 0, xs = 0, ma = 0, mx = 0;
        for (int64_t j = g * group; j < (g + 1) * group; ++j) {
          double xv = wd(x[m * K + j]), qv = double(affine::code_at(&q[n * wpr], j, bits));
          a += xv * qv;
          xs += xv;
          ma += std::fabs(xv) * qv;
          mx += std::fabs(xv);
        }
        double sv = wd(s[n * G + g]), bv = wd(b[n * G + g]);
        yy += sv * a + bv * xs;
        mm += std::fabs(sv) * ma + std::fabs(bv) * mx;
      }
      y[m * N + n] = yy;
      mag[m * N + n] = mm;
    }
}

using ref_isas::expect_same;
using ref_isas::Isas;

TEST_F(Isas, AffineBlockedEqualsThePlainLoop) {
  for (auto set : sets()) {
    fam::force_ref_isa(set);
    for (int bits : {2, 3, 4, 5, 6, 8})
      for (int group : {32, 64, 128}) {
        Entry e = affine::projection(bits, group, DType::f32);
        // K: one group; a short last K block; several blocks. M and N ragged to every tile and block.
        for (int64_t K : {int64_t(group), int64_t(group) * 3, int64_t(384) + group})
          for (auto [M, N] : {std::pair<int64_t, int64_t>{1, 1}, {7, 19}, {97, 131}}) {
            // The largest size at the longest K only, plants at the smaller ones: keeps the test short.
            const bool big = M == 97;
            if (big && (K != 384 + group || ((bits == 3 || bits == 5 || bits == 6) && group != 64))) continue;
            const Shape sh{{"m", M}, {"n", N}, {"k", K}};
            std::vector<Fill> fills;
            fills.push_back(Fill{FillKind::random});
            if (!big) fills.push_back(Fill{FillKind::nonfinite, 3, K - 5}), fills.push_back(Fill{FillKind::nonfinite, 10, K - 5});
            if (K >= 64) fills.push_back(Fill{FillKind::sums});
            for (const Fill& f : fills) {
              Case c(sh, f, uint64_t(bits * 1000 + group + K));
              e.rig.prepare(c);
              auto exp = e.rig.reference(c);
              std::vector<double> ny, nmag;
              naive(c, bits, group, M, N, K, ny, nmag);
              SCOPED_TRACE(std::string(fam::ref_isa_name()) + " bits " + std::to_string(bits) + " group " +
                           std::to_string(group) + " " + sh.str() + " fill " + std::to_string(int(f.kind)) +
                           " plant " + std::to_string(f.plant));
              expect_same(exp[0].want, ny, "y");
              if (f.kind == FillKind::nonfinite)  // gate 1 compares classes: no magnitudes are built
                EXPECT_TRUE(exp[0].mag.empty());
              else
                expect_same(exp[0].mag, nmag, "mag");
            }
          }
      }
  }
}

// Gate 4's repeated rows, then one scale changed: the reference must notice and evaluate every row.
TEST(AffineReference, RepeatedRowsAreCheckedNotAssumed) {
  Entry e = affine::projection(4, 64, DType::f32);
  Case c(Shape{{"m", 5}, {"n", 8}, {"k", 128}}, Fill{FillKind::sums}, 5);
  e.rig.prepare(c);
  c.get_mut<bf16>("s")[6 * 2 + 1] = to_bf16(3.0f);  // row 6 no longer equals row 0, its pattern
  auto exp = e.rig.reference(c);
  std::vector<double> ny, nmag;
  naive(c, 4, 64, 5, 8, 128, ny, nmag);
  expect_same(exp[0].want, ny, "y");
  expect_same(exp[0].mag, nmag, "mag");
}

}  // namespace
