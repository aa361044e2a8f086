// The CUDA float64 references (backends/cuda/ref_f64.cu) against the CPU's, on a GPU: core's own
// check, then ragged tiles past one block in every direction at every bit width and group, bit for
// bit in y and in the magnitude; planted NaN and infinities land in the same classes. Without a GPU
// each test says so and skips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "backends/cuda/ref_f64.hpp"
#include "families/dense/src/dense_detail.hpp"
#include "families/dense/src/ref_gemm.hpp"
#include "kc/backend.hpp"
#include "kc/families/affine.hpp"
#include "kc/ref_device.hpp"

namespace {
using namespace kc;

kc::Backend* cuda_or_skip_reason(std::string& why) {
  static auto all = make_backends();
  for (auto& b : all)
    if (b->name() == "cuda") {
      why = b->absent();
      return why.empty() ? b.get() : nullptr;
    }
  why = "no cuda backend in this build";
  return nullptr;
}

#define NEED_GPU(b)                                    \
  std::string why_absent;                              \
  kc::Backend* b = cuda_or_skip_reason(why_absent);    \
  if (!b) GTEST_SKIP() << why_absent

// Values of both signs over 2^-30 .. 2^30, and signed zeros.
bf16 spread(fam::Rng& g) { return fam::spread_or_zero(g, -30, 29); }

// Affine inputs of spread values (codes: uniform words) for M x K rows of x and N rows of weights.
struct AffineInputs {
  int bits, group;
  int64_t wpr;
  std::vector<bf16> x, s, b;
  std::vector<uint32_t> q;
  AffineInputs(fam::Rng& g, int64_t M, int64_t N, int64_t K, int bits_, int group_)
      : bits(bits_), group(group_), wpr(affine::words_per_row(K, bits_)), x(size_t(M * K)),
        s(size_t(N * (K / group_))), b(s.size()), q(size_t(N * wpr)) {
    for (auto* v : {&x, &s, &b})
      for (auto& e : *v) e = spread(g);
    for (auto& e : q) e = uint32_t(g.next());
  }
  RefAffineW weights() const { return {q.data(), s.data(), b.data(), bits, group, wpr}; }
};

size_t first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], 8) != 0) return i;
  return a.size();
}

TEST(CudaRefF64, TheBackendOffersItAndCoresCheckTakesIt) {
  NEED_GPU(b);
  const RefDevice* d = b->references();
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->name.find("CUDA device 0"), std::string::npos) << d->name;
  EXPECT_EQ(check_ref_device(*d), "");
}

TEST(CudaRefF64, DenseEqualsTheCpuBitForBitOnRaggedTiles) {
  NEED_GPU(b);
  fam::Rng g(5);
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {65, 63, 17}, {130, 200, 1000}, {7, 300, 4099}}) {
    std::vector<bf16> x(size_t(M * K)), w(size_t(N * K));
    for (auto& v : x) v = spread(g);
    for (auto& v : w) v = spread(g);
    std::vector<double> y(size_t(M * N)), ym(y.size()), c(y.size()), cm(y.size());
    ASSERT_EQ(cuda_ref::dense(x.data(), w.data(), M, N, K, y.data(), ym.data()), "");
    fam::ref_dense_cpu(x.data(), w.data(), M, N, K, c.data(), cm.data());
    EXPECT_EQ(first_difference(y, c), y.size()) << M << "x" << N << "x" << K;
    EXPECT_EQ(first_difference(ym, cm), y.size()) << M << "x" << N << "x" << K;
  }
}

TEST(CudaRefF64, AffineEqualsTheCpuBitForBitAtEveryWidthAndGroup) {
  NEED_GPU(b);
  fam::Rng g(9);
  for (int bits : {2, 3, 4, 5, 6, 8})
    for (int group : {32, 64, 128}) {
      const int64_t M = 67, N = 129, K = 3 * 128 + group;
      AffineInputs in(g, M, N, K, bits, group);
      const RefAffineW w = in.weights();
      std::vector<double> y(size_t(M * N)), ym(y.size()), c(y.size()), cm(y.size());
      ASSERT_EQ(cuda_ref::affine(in.x.data(), w, M, N, K, y.data(), ym.data()), "");
      fam::ref_affine_cpu(in.x.data(), w, M, N, K, c.data(), cm.data());
      EXPECT_EQ(first_difference(y, c), y.size()) << bits << " bits, group " << group;
      EXPECT_EQ(first_difference(ym, cm), y.size()) << bits << " bits, group " << group;
    }
}

TEST(CudaRefF64, NonFiniteInputsLandInTheCpusClasses) {
  NEED_GPU(b);
  fam::Rng g(13);
  const int64_t M = 9, N = 70, K = 256, G = K / 64;
  AffineInputs in(g, M, N, K, 4, 64);
  in.x[3 * K + 5] = bf16{0x7fc0};    // NaN
  in.x[5 * K + 100] = bf16{0x7f80};  // +Inf
  in.s[7 * G + 1] = bf16{0xff80};    // -Inf scale
  in.b[9 * G + 2] = bf16{0x7f80}, in.s[9 * G + 2] = bf16{0x7f80};
  const RefAffineW w = in.weights();
  std::vector<double> y(size_t(M * N)), ym(y.size()), c(y.size()), cm(y.size());
  ASSERT_EQ(cuda_ref::affine(in.x.data(), w, M, N, K, y.data(), ym.data()), "");
  fam::ref_affine_cpu(in.x.data(), w, M, N, K, c.data(), cm.data());
  int nonfinite = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    nonfinite += !std::isfinite(c[i]);
    EXPECT_EQ(std::isnan(y[i]), std::isnan(c[i])) << i;
    if (!std::isnan(c[i])) EXPECT_EQ(y[i], c[i]) << i;
    EXPECT_EQ(std::isnan(ym[i]), std::isnan(cm[i])) << i;
    if (!std::isnan(cm[i])) EXPECT_EQ(ym[i], cm[i]) << i;
  }
  EXPECT_GT(nonfinite, N);  // the NaN and Inf rows and columns reached their outputs
}

TEST(CudaRefF64, AShapeItDoesNotTakeIsRefusedByName) {
  NEED_GPU(b);
  std::vector<bf16> x(48), s(2), bb(2);
  std::vector<uint32_t> q(6);
  const RefAffineW w{q.data(), s.data(), bb.data(), 4, 48, 6};
  std::vector<double> y(1), ym(1);
  EXPECT_NE(cuda_ref::affine(x.data(), w, 1, 1, 48, y.data(), ym.data()).find("group 48"), std::string::npos);
}

}  // namespace
