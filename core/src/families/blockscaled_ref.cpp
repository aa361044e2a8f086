// The block-scaled family's float64 reference, gate 4's replays and the entry. Every element is
// dequantized in double from its stored code and scales by the formats' definitions (kc/lowp.hpp),
// then the dot is summed in double: the dequantized formula on the exact inputs.
#include <any>
#include <cmath>

#include "blockscaled_detail.hpp"
#include "dense_detail.hpp"
#include "kc/parallel.hpp"

namespace kc::blockscaled {
namespace {

using detail::Layout;

// a [m x k] and w [n x k] as doubles. A product of a code's value and its scales is exact in
// double (at most 4 + 24 + 24 significant bits for FP8, 2 + 4 + 24 for NVFP4); a NaN code or scale
// is NaN there, an infinite scale times a zero code NaN, as the formula gives.
void dequantize(const Case& c, const Layout& L, std::vector<double>& a, std::vector<double>& w) {
  a.resize(size_t(L.m * L.k));
  w.resize(size_t(L.n * L.k));
  if (L.a == Acts::bf16) {
    auto x = c.get<bf16>("x");
    for (size_t i = 0; i < a.size(); ++i) a[i] = fam::bf(x[i]);
  } else {
    auto xq = c.get<uint8_t>("xq");
    auto sx = c.get<float>("sx");
    for (int64_t m = 0; m < L.m; ++m)
      for (int64_t j = 0; j < L.k; ++j)
        a[m * L.k + j] = lowp::decode(lowp::Format::e4m3, xq[m * L.k + j]) * double(sx[size_t(L.sx_at(m, j))]);
  }
  auto q = c.get<uint8_t>("q");
  const double g = L.w == Weights::nvfp4 ? double(c.get<float>("g")[0]) : 1.0;
  std::span<const float> sf;
  std::span<const uint8_t> su;
  if (L.s_is_f32()) sf = c.get<float>("s");
  else su = c.get<uint8_t>("s");
  kc::parallel_for(L.n, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t j = 0; j < L.k; ++j) {
        double code;
        if (is_fp4(L.w)) {
          const uint8_t byte = q[n * L.qrow + j / 2];
          code = lowp::decode(lowp::Format::e2m1, j % 2 ? byte >> 4 : byte & 0x0F);
        } else {
          code = lowp::decode(lowp::Format::e4m3, q[n * L.qrow + j]);
        }
        const int64_t si = L.s_at(n, j);
        const double s = L.s_is_f32() ? double(sf[size_t(si)]) : lowp::decode(L.s_format(), su[size_t(si)]);
        w[n * L.k + j] = code * s * g;
      }
  });
}

struct State {
  Layout L;
};

std::vector<Expected> reference(const Case& c) {
  const Layout& L = std::any_cast<const State&>(c.state).L;
  std::vector<double> a, w;
  dequantize(c, L, a, w);
  Expected e;
  e.name = "y";
  e.exact_sums = true;
  e.want.resize(size_t(L.m * L.n));
  e.mag.resize(e.want.size());
  kc::parallel_for(L.n, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t m = 0; m < L.m; ++m) {
        double y = 0, mag = 0;
        for (int64_t j = 0; j < L.k; ++j) {
          const double t = a[m * L.k + j] * w[n * L.k + j];
          y += t, mag += std::fabs(t);
        }
        e.want[m * L.n + n] = y, e.mag[m * L.n + n] = mag;
      }
  });
  std::vector<Expected> out;
  out.push_back(std::move(e));
  return out;
}

std::vector<std::vector<double>> simulate(const Case& c, SumFormat f, SumOrder o) {
  const Layout& L = std::any_cast<const State&>(c.state).L;
  std::vector<double> a, w;
  dequantize(c, L, a, w);
  std::vector<double> y(size_t(L.m * L.n));
  kc::parallel_for(L.n, [&](int64_t lo, int64_t hi) {
    std::vector<double> t(size_t(L.k));
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t m = 0; m < L.m; ++m) {
        for (int64_t j = 0; j < L.k; ++j) t[j] = a[m * L.k + j] * w[n * L.k + j];
        y[m * L.n + n] = replay_sum(t.data(), t.size(), f, o);
      }
  });
  std::vector<std::vector<double>> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace

Entry projection(Weights w, Acts a, DType out) {
  if (a != Acts::bf16 && is_fp4(w)) throw Error("blockscaled: FP8 activations go with FP8 weights only");
  if (out != DType::bf16 && out != DType::f32) throw Error("blockscaled::projection: out must be bf16 or f32");
  Entry e;
  e.rig.prepare = [w, a, out](Case& c) {
    State st{detail::layout(w, a, out, c.shape())};
    detail::fill(c, st.L);
    c.state = st;
  };
  e.rig.reference = reference;
  e.rig.simulate = simulate;
  const auto list = detail::plant_list(w, a);
  std::vector<plants::Plant> ps;
  for (const auto& p : list) e.rig.plants.push_back(p.label), ps.push_back(p.p);
  e.rig.plants_at_scale = plants::leading_basic(ps);
  e.rig.plants_at_edges = plants::at_edges(ps);
  return e;
}

}  // namespace kc::blockscaled
