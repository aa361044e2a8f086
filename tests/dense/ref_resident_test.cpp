// Answers a reference device keeps (kc/ref_device.hpp's RefResident), on the CPU side: core's check
// takes a device whose kept answers and check are the CPU's and refuses one whose check names another
// worst output or whose kept answers are an ulp off; a dense reference of a random fill inside a
// ResidentScope leaves its want empty, and compare() then gives the verdict, the failing line and the
// margin the host's pass gives on the same outputs. tests/cuda/ref_f64_test.cu holds the CUDA device's
// kept answers and check to core's check on a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "../../families/dense/src/ref_gemm.hpp"
#include "../../core/src/gates/gates.hpp"
#include "kc/families/dense.hpp"
#include "kc/numeric.hpp"
#include "kc/ref_device.hpp"
#include "kc/spec.hpp"

namespace {
using namespace kc;

// Kept answers on the CPU: the check is compare()'s rule written out plainly, one output at a time.
struct CpuKept final : RefResident {
  std::vector<double> y, mag;
  int worst_shift = 0;  // a fault to plant: the worst output named this many places away
  uint64_t count() const override { return y.size(); }
  std::string at(uint64_t i, double& w, double& m) const override {
    w = y.at(i), m = mag.at(i);
    return {};
  }
  std::string fetch(double* w, double* m) const override {
    std::copy(y.begin(), y.end(), w);
    std::copy(mag.begin(), mag.end(), m);
    return {};
  }
  std::string check(const void* got, DType t, const RefBound& k, RefChecked& out) const override {
    out = {};
    for (uint64_t i = 0; i < y.size(); ++i) {
      const double g = load_as_double(got, t, i), w = y[i];
      double ratio;
      if (!std::isfinite(w) || !std::isfinite(g)) {
        if ((std::isnan(w) && std::isnan(g)) || w == g) continue;
        ratio = INFINITY;
      } else {
        const double bound = ((k.r * std::fabs(w) + k.a * std::fabs(w)) + k.g * std::fabs(mag[i])) + k.floor;
        const double e = std::fabs(g - w);
        if (e <= bound) {
          const double r = bound > 0 ? std::min(1.0, e / bound) : 0;
          if (r > out.near_ratio) out.near_ratio = r, out.near = i;
          continue;
        }
        ratio = bound > 0 ? e / bound : INFINITY;
      }
      if (!out.outside++ || ratio > out.worst_ratio) out.worst_ratio = ratio, out.worst = i;
    }
    if (out.outside) out.worst += uint64_t(worst_shift);
    return {};
  }
};

struct Fake {
  bool ulp = false;   // the kept answers one ulp off at one output
  int shift = 0;      // the check names the wrong worst output
  int kept = 0;
  RefDevice device() {
    RefDevice d;
    d.name = "the fake device";
    d.dense = [](const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
      fam::ref_dense_cpu(x, w, M, N, K, y, mag);
      return std::string();
    };
    d.affine = [](const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
      fam::ref_affine_cpu(x, w, M, N, K, y, mag);
      return std::string();
    };
    d.dense_resident = [this](const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K,
                              std::unique_ptr<RefResident>& out) {
      ++kept;
      auto r = std::make_unique<CpuKept>();
      r->y.resize(size_t(M * N)), r->mag.resize(size_t(M * N));
      fam::ref_dense_cpu(x, w, M, N, K, r->y.data(), r->mag.data());
      if (ulp) r->y[1] = std::nextafter(r->y[1], INFINITY);
      r->worst_shift = shift;
      out = std::move(r);
      return std::string();
    };
    d.affine_resident = [this](const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K,
                               std::unique_ptr<RefResident>& out) {
      ++kept;
      auto r = std::make_unique<CpuKept>();
      r->y.resize(size_t(M * N)), r->mag.resize(size_t(M * N));
      fam::ref_affine_cpu(x, w, M, N, K, r->y.data(), r->mag.data());
      r->worst_shift = shift;
      out = std::move(r);
      return std::string();
    };
    return d;
  }
};

TEST(RefResident, TheCheckTakesKeptAnswersAndACheckThatAreTheCpus) {
  Fake f;
  EXPECT_EQ(check_ref_device(f.device()), "");
  EXPECT_EQ(f.kept, 8);  // two dense cases, one affine case a bit width, each kept too
}

TEST(RefResident, TheCheckRefusesAnUlpOffOrAnotherWorstOutput) {
  Fake f;
  f.ulp = true;
  const std::string u = check_ref_device(f.device());
  EXPECT_NE(u.find("dense 37x45x300 (kept on the device): y[1]"), std::string::npos) << u;
  f.ulp = false;
  f.shift = 1;
  const std::string w = check_ref_device(f.device());
  EXPECT_NE(w.find("the device's check found"), std::string::npos) << w;
}

// The dense family's entry at a shape the device takes (2^28 multiply-adds), its reference with and
// without a ResidentScope, compared by compare() on the same outputs.
struct DenseCase {
  Entry e = dense::projection(DType::f32)
                .served({{"m", {512}}, {"n", {512}}, {"k", {1024}}})
                .sums(DType::f32, [](const Shape& s) { return double(s["k"]); });
  Case c{Shape{{"m", 512}, {"n", 512}, {"k", 1024}}, Fill{FillKind::random}, 0x5eed};
  DenseCase() {
    e.spec.name = "dense/resident_test";
    c.spec = &e.spec;
    e.rig.prepare(c);
  }
};

TEST(RefResident, ARandomFillsReferenceIsKeptAndComparedAsOnTheHost) {
  DenseCase t;
  Fake f;
  const RefDevice d = f.device();
  RefDeviceScope on(&d);
  const std::vector<Expected> host = t.e.rig.reference(t.c);  // no ResidentScope: want on the host
  ASSERT_EQ(host.at(0).want.size(), size_t(512 * 512));
  auto y = t.c.get_mut<float>("y");
  for (size_t i = 0; i < y.size(); ++i) y[i] = float(host[0].want[i]);
  for (int round = 0; round < 2; ++round) {
    if (round == 1) {  // failing outputs, one of them non-finite, and the worst twice (the first named)
      y[1000] = float(host[0].want[1000] * (1 + 0x1p-8));
      y[70000] = float(host[0].want[70000] * (1 + 0x1p-6) + 0x1p-6);
      y[200000] = INFINITY;
    }
    ResidentScope scope;
    const std::vector<Expected> kept = t.e.rig.reference(t.c);
    ASSERT_EQ(f.kept, round + 1);
    ASSERT_TRUE(kept.at(0).want.empty());
    ASSERT_NE(scope.find(t.c.buffer("y").bytes.data()), nullptr);
    const detail::Outcome a = detail::compare(t.e.spec, t.c, host, true);
    const detail::Outcome b = detail::compare(t.e.spec, t.c, kept, true);
    EXPECT_EQ(a.failed, round == 1);
    EXPECT_EQ(a.failed, b.failed);
    EXPECT_EQ(a.detail, b.detail);
    ASSERT_EQ(bool(a.margin), bool(b.margin));
    if (a.margin) {
      EXPECT_EQ(a.margin->index, b.margin->index);
      EXPECT_EQ(a.margin->ratio, b.margin->ratio);
      EXPECT_EQ(a.margin->want, b.margin->want);
      EXPECT_EQ(a.margin->got, b.margin->got);
      EXPECT_EQ(a.margin->bound, b.margin->bound);
    }
  }
}

TEST(RefResident, OtherFillsAndNoScopeKeepNothing) {
  DenseCase t;
  Fake f;
  const RefDevice d = f.device();
  RefDeviceScope on(&d);
  EXPECT_EQ(t.e.rig.reference(t.c).at(0).want.size(), size_t(512 * 512));  // no scope
  Case sums{t.c.shape(), Fill{FillKind::sums}, 7};
  sums.spec = &t.e.spec;
  t.e.rig.prepare(sums);
  ResidentScope scope;
  EXPECT_EQ(t.e.rig.reference(sums).at(0).want.size(), size_t(512 * 512));
  EXPECT_EQ(f.kept, 0);
}

}  // namespace

namespace {
using namespace kc;

// Gate 1's fills inside a ResidentScope: the class pairs kept, want empty, and the classes checked
// through them as the expanded answers would check them, the first differing output named.
TEST(RefResident, GateOnesClassPairsAreKeptAndCheckedAsExpanded) {
  Entry e = dense::projection(DType::f32).served({{"m", {64}}, {"n", {96}}, {"k", {256}}});
  e.spec.name = "dense/resident_classes_test";
  Case c{Shape{{"m", 64}, {"n", 96}, {"k", 256}}, Fill{FillKind::nonfinite, 0, -1}, 11};
  c.spec = &e.spec;
  e.rig.prepare(c);
  const std::vector<Expected> host = e.rig.reference(c);
  ASSERT_EQ(host.at(0).want.size(), size_t(64 * 96));
  auto y = c.get_mut<float>("y");
  for (size_t i = 0; i < y.size(); ++i) y[i] = float(host[0].want[i]);
  y[100] = std::isnan(y[100]) ? 1.0f : NAN;
  y[5000] = std::isinf(y[5000]) ? 0.0f : INFINITY;
  uint64_t n = 0, first = y.size();
  for (size_t i = 0; i < y.size(); ++i)
    if (fclass(host[0].want[i]) != fclass(double(y[i])) && !n++) first = i;
  ASSERT_EQ(n, 2u);
  ResidentScope scope;
  const std::vector<Expected> kept = e.rig.reference(c);
  ASSERT_TRUE(kept.at(0).want.empty());
  const RefResident* k = scope.find(c.buffer("y").bytes.data());
  ASSERT_NE(k, nullptr);
  uint64_t kn = 0, kf = 0;
  ASSERT_EQ(k->classes(y.data(), DType::f32, kn, kf), "");
  EXPECT_EQ(kn, n);
  EXPECT_EQ(kf, first);
  double w = 0, m = 0;
  ASSERT_EQ(k->at(first, w, m), "");
  EXPECT_EQ(fclass(w), fclass(host[0].want[first]));
  std::vector<double> all(y.size()), mags(y.size());
  ASSERT_EQ(k->fetch(all.data(), mags.data()), "");
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(fclass(all[i]), fclass(host[0].want[i])) << i;
}

}  // namespace
