// The block-scaled family's float64 reference, gate 4's replays and the entry. Every element is
// dequantized in double from its stored code and scales by the formats' definitions (kc/lowp.hpp),
// then the dot is summed in double: the dequantized formula on the exact inputs.
#include <any>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "blockscaled_detail.hpp"
#include "dense/src/dense_detail.hpp"
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

// rep[r]: the first row whose k values equal row r's bit for bit. Gate 4's rows repeat a few
// patterns (sums_fill), so each distinct (x row, w row) pair is summed once and copied to the others.
std::vector<int64_t> first_equal_rows(const std::vector<double>& v, int64_t rows, int64_t k) {
  std::vector<uint64_t> h(static_cast<size_t>(rows));
  kc::parallel_for(rows, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      uint64_t x = 1469598103934665603ull;
      for (int64_t j = 0; j < k; ++j) {
        uint64_t b;
        std::memcpy(&b, &v[size_t(r * k + j)], 8);
        x = (x ^ b) * 1099511628211ull;
      }
      h[size_t(r)] = x;
    }
  });
  std::vector<int64_t> rep(static_cast<size_t>(rows));
  std::unordered_map<uint64_t, std::vector<int64_t>> seen;
  for (int64_t r = 0; r < rows; ++r) {
    rep[size_t(r)] = r;
    auto& firsts = seen[h[size_t(r)]];
    for (int64_t f : firsts)
      if (std::memcmp(&v[size_t(f * k)], &v[size_t(r * k)], size_t(k) * 8) == 0) {
        rep[size_t(r)] = f;
        break;
      }
    if (rep[size_t(r)] == r) firsts.push_back(r);
  }
  return rep;
}

// f(m, n, at) for every distinct pair of rows (it writes output `at` of each vector in outs), then
// each other output of outs copied from its pair's.
template <class F> void each_distinct(const Layout& L, const std::vector<double>& a, const std::vector<double>& w,
                                      std::initializer_list<std::vector<double>*> outs, F&& f) {
  const auto ra = first_equal_rows(a, L.m, L.k), rw = first_equal_rows(w, L.n, L.k);
  kc::parallel_for(L.n, [&](int64_t lo, int64_t hi) {
    for (int64_t n = lo; n < hi; ++n)
      if (rw[size_t(n)] == n)
        for (int64_t m = 0; m < L.m; ++m)
          if (ra[size_t(m)] == m) f(m, n, size_t(m * L.n + n));
  });
  for (auto* y : outs)
    for (int64_t m = 0; m < L.m; ++m)
      for (int64_t n = 0; n < L.n; ++n) (*y)[size_t(m * L.n + n)] = (*y)[size_t(ra[size_t(m)] * L.n + rw[size_t(n)])];
}

std::vector<Expected> reference(const Case& c) {
  const Layout& L = std::any_cast<const State&>(c.state).L;
  std::vector<double> a, w;
  dequantize(c, L, a, w);
  Expected e;
  e.name = "y";
  e.exact_sums = true;
  e.want.resize(size_t(L.m * L.n));
  e.mag.resize(e.want.size());
  each_distinct(L, a, w, {&e.want, &e.mag}, [&](int64_t m, int64_t n, size_t at) {
    double y = 0, mag = 0;
    for (int64_t j = 0; j < L.k; ++j) {
      const double t = a[m * L.k + j] * w[n * L.k + j];
      y += t, mag += std::fabs(t);
    }
    e.want[at] = y, e.mag[at] = mag;
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
  each_distinct(L, a, w, {&y}, [&](int64_t m, int64_t n, size_t at) {
    thread_local std::vector<double> t;
    t.resize(size_t(L.k));
    for (int64_t j = 0; j < L.k; ++j) t[j] = a[m * L.k + j] * w[n * L.k + j];
    y[at] = replay_sum(t.data(), t.size(), f, o);
  });
  std::vector<std::vector<double>> out;
  out.push_back(std::move(y));
  return out;
}

}  // namespace

Entry projection(Weights w, Acts a, DType out, int64_t interval) {
  if (interval < 0 || interval % 32) throw Error("blockscaled::projection: a tensor-core interval is a multiple of 32, got " + std::to_string(interval));
  if (a != Acts::bf16 && is_fp4(w)) throw Error("blockscaled: FP8 activations go with FP8 weights only");
  if (out != DType::bf16 && out != DType::f32) throw Error("blockscaled::projection: out must be bf16 or f32");
  Entry e;
  e.rig.prepare = [w, a, out, interval](Case& c) {
    State st{detail::layout(w, a, out, c.shape())};
    st.L.interval = interval;
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
