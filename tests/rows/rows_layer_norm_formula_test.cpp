// rows::layer_norm written on the formula API against the family's former hand-written rig, restated
// here: the same inputs at every gate's fill (spread, named, plants), the same float64 reference (y,
// mean, rstd) bit for bit at every fill, gate 4's zero-mean rows included, and the same six fp16/bf16
// replays bit for bit, in both variance forms (two passes and Welford's), bf16 weights too.
#include <array>
#include <cmath>

#include <gtest/gtest.h>

#include "kc/families/blocks.hpp"
#include "kc/families/plants.hpp"
#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;
using kc::rows::LayerNormForm;
constexpr double kEps = 1e-5;

// The former prepare for gates 1-3: w and b spread over binades -2..1, x spread over -4..3 or a
// named fill (range: exponents -50..50), then a plant in whichever operand it names.
std::array<std::vector<double>, 3> old_inputs(const kc::Case& c, DType in, DType wt) {
  static const auto ops = kc::plants::standard(
      {{"x", kc::plants::kMaskRow}, {"w", kc::plants::kNoRows}, {"b", kc::plants::kNoRows}});
  const kc::blocks::Dims d{c.shape()["rows"], c.shape()["cols"]};
  kc::Case o(c.shape(), c.fill(), c.seed());
  o.spec = c.spec;
  kc::blocks::Buf x(o, "x", in, size_t(d.rows * d.cols), kc::Role::in);
  kc::blocks::Buf w(o, "w", wt, size_t(d.cols), kc::Role::in);
  kc::blocks::Buf b(o, "b", wt, size_t(d.cols), kc::Role::in);
  kc::blocks::Rng rx = kc::blocks::rng_for(o, "x"), rw = kc::blocks::rng_for(o, "w"), rb = kc::blocks::rng_for(o, "b");
  kc::blocks::fill_spread(w, rw, -2, 1);
  kc::blocks::fill_spread(b, rb, -2, 1);
  if (!kc::blocks::fill_dist(x, o, "x", d, true, {-50, 50})) kc::blocks::fill_spread(x, rx, -4, 3);
  kc::blocks::plant_if(x, o, ops, "x", d, true);
  kc::blocks::plant_if(w, o, ops, "w", d, false);
  kc::blocks::plant_if(b, o, ops, "b", d, false);
  return {values(o, "x"), values(o, "w"), values(o, "b")};
}

// The former reference (want: two passes in float64, whichever form) and simulate (sum x replayed,
// then sum (x - mean)^2 around the replay's mean): y, mean, rstd.
std::array<std::vector<double>, 3> old_outputs(const kc::Case& c, const kc::blocks::Replay* rp) {
  const int64_t rows = c.shape()["rows"], cols = c.shape()["cols"];
  const auto x = values(c, "x"), w = values(c, "w"), b = values(c, "b");
  std::array<std::vector<double>, 3> o{std::vector<double>(x.size()), std::vector<double>(size_t(rows)),
                                       std::vector<double>(size_t(rows))};
  std::vector<double> sq(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double s = 0, s2 = 0;
    for (int64_t j = 0; j < cols; ++j) s += xr[j];
    const double mu = rp ? kc::replay_sum(xr, size_t(cols), rp->f, rp->o) / double(cols) : s / double(cols);
    for (int64_t j = 0; j < cols; ++j) s2 += (sq[size_t(j)] = (xr[j] - mu) * (xr[j] - mu));
    if (rp) s2 = kc::replay_sum(sq.data(), sq.size(), rp->f, rp->o);
    const double rs = 1 / std::sqrt(s2 / double(cols) + kEps);
    for (int64_t j = 0; j < cols; ++j) o[0][size_t(r * cols + j)] = (xr[j] - mu) * rs * w[size_t(j)] + b[size_t(j)];
    o[1][size_t(r)] = mu, o[2][size_t(r)] = rs;
  }
  return o;
}

bool same_bits(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b; }

TEST(RowsLayerNormFormula, SameInputsReferenceAndReplaysAsTheHandWrittenRig) {
  struct Form {
    DType in, wt;
    LayerNormForm::Variance v;
  };
  for (const Form& fm : {Form{DType::f32, DType::f32, LayerNormForm::Variance::two_pass},
                         Form{DType::bf16, DType::bf16, LayerNormForm::Variance::two_pass},
                         Form{DType::f32, DType::bf16, LayerNormForm::Variance::welford}}) {
    LayerNormForm form;
    form.variance = fm.v;
    form.weights = fm.wt;
    const auto e = with_sums(kc::rows::layer_norm(fm.in, fm.in, kEps, form), 6);
    std::vector<Fill> fills{Fill{}, dist("tiny"), dist("offset"), dist("range"), Fill{FillKind::sums}};
    for (int p = 0; p < int(e.rig.plants.size()); p += 2) fills.push_back(Fill{FillKind::nonfinite, p, -1});
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 64}, {3, 257}, {5, 1000}})
      for (const Fill& f : fills) {
        auto c = prepared(e, shape(rows, cols), f, 11 + uint64_t(rows));
        const std::string at = kc::Shape(shape(rows, cols)).str() + " fill " + std::to_string(int(f.kind)) + f.dist +
                               " plant " + std::to_string(f.plant) + " " + kc::dtype_name(fm.in);
        if (f.kind != FillKind::sums) {
          const auto old = old_inputs(c, fm.in, fm.wt);
          const char* names[3] = {"x", "w", "b"};
          for (size_t k = 0; k < 3; ++k) {
            const auto now = values(c, names[k]);
            ASSERT_EQ(now.size(), old[k].size());
            for (size_t i = 0; i < now.size(); ++i)
              ASSERT_TRUE(same_bits(now[i], old[k][i])) << at << " " << names[k] << "[" << i << "]";
          }
        }
        const auto ex = e.rig.reference(c);
        ASSERT_EQ(ex.size(), 3u);
        const auto want = old_outputs(c, nullptr);
        for (size_t k = 0; k < 3; ++k)
          for (size_t i = 0; i < want[k].size(); ++i)
            ASSERT_TRUE(same_bits(ex[k].want[i], want[k][i])) << at << " " << ex[k].name << "[" << i << "]";
        if (f.kind == FillKind::nonfinite) continue;
        for (size_t k = 0; k < 3; ++k) {  // every output checked by interval, holding float64's value as stored
          ASSERT_EQ(ex[k].lo.size(), want[k].size()) << at << " " << ex[k].name;
          const DType t = k == 0 ? fm.in : DType::f32;
          for (size_t i = 0; i < want[k].size(); ++i) {
            const double v = kc::round_to(t, want[k][i]);
            ASSERT_TRUE(ex[k].lo[i] <= v && v <= ex[k].hi[i])
                << at << " " << ex[k].name << "[" << i << "] " << v << " in [" << ex[k].lo[i] << ", " << ex[k].hi[i] << "]";
          }
        }
        for (const auto& rp : kc::blocks::kReplays) {
          const auto rep = e.rig.simulate(c, rp.f, rp.o);
          const auto old = old_outputs(c, &rp);
          ASSERT_EQ(rep.size(), 3u);
          for (size_t k = 0; k < 3; ++k)
            for (size_t i = 0; i < old[k].size(); ++i)
              ASSERT_TRUE(same_bits(rep[k][i], old[k][i])) << at << " replay " << ex[k].name << "[" << i << "]";
        }
      }
  }
}

}  // namespace
