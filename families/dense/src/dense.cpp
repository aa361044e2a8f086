// The dense family: y = x . W^T in bf16 inputs (see kc/families/dense.hpp).
#include "kc/families/dense.hpp"

#include <any>
#include <cmath>
#include <limits>
#include <string>

#include "dense_detail.hpp"
#include "kc/families/fills.hpp"
#include "kc/families/plants.hpp"
#include "ref_gemm.hpp"
#include "kc/numeric.hpp"

namespace kc::dense {
namespace {

using fam::bf;
using fam::bf_exact;

// Kept between prepare() and reference()/simulate(): for the sums fill, which x and w rows share a
// pattern (rows with the same pattern hold the same values, so each distinct pair is replayed once).
struct State {
  int64_t m = 0, n = 0, k = 0;
  bool sums = false;
  int64_t xpats = 0, wpats = 0;  // sums fill: row i uses pattern i % pats
};


// Gate 1: today's four in x's last row, then in w's, then the rest (plants.hpp). Whole rows: a masked
// row of x, and a row of w all -Inf (against signed values: NaN; +Inf is the mirror, NaN one NaN).
const std::vector<plants::Plant>& plant_list() {
  // Last, 0 * Inf: a 0 in x's last row facing +Inf in w's (float64: NaN), which a kernel that skips
  // zero activations (a sparsity shortcut) turns into a finite sum.
  static const std::vector<plants::Plant> p = [] {
    auto v = plants::standard({{"x", plants::kMaskRow}, {"w", plants::kMaskRow}});
    v.push_back({"w", plants::Kind::pinf_at_zero, plants::At::middle, "x"});
    return v;
  }();
  return p;
}

// Fills for gates 2 and 3: signed zeros in x and w, a large offset in x over signed weights
// (cancellation), rows of one sign in x and w, magnitudes from 2^-100 to 2^100 in x.
const std::vector<std::string> kFills = {fills::kZeros, fills::kOffset, fills::kSign, fills::kCut, fills::kRange};

// Rows of a [rows x k] operand from distribution `dist` (fills.hpp).
void dist_rows(std::span<bf16> v, int64_t rows, int64_t k, const Case& c, const char* name, const fills::Range& r) {
  const std::string& dist = c.fill().dist;
  const uint64_t seed = fills::seed_for(c.seed(), name, dist);
  std::vector<double> row(static_cast<size_t>(k));
  for (int64_t i = 0; i < rows; ++i) {
    fills::row(dist, DType::bf16, seed, i, row, r);
    for (int64_t j = 0; j < k; ++j) v[size_t(i * k + j)] = bf_exact(row[size_t(j)]);
  }
}

void prepare(Case& c, DType out) {
  const Shape& s = c.shape();
  State st{s["m"], s["n"], s["k"]};
  if (st.m < 1 || st.n < 1 || st.k < 1) throw Error("dense: m, n and k must be at least 1 at " + s.str());
  auto x = c.in<bf16>("x", size_t(st.m * st.k));
  auto w = c.in<bf16>("w", size_t(st.n * st.k));
  if (out == DType::bf16)
    c.out<bf16>("y", size_t(st.m * st.n));
  else
    c.out<float>("y", size_t(st.m * st.n));
  const Fill& f = c.fill();
  uint64_t seed = c.seed();
  if (f.kind == FillKind::sums) {
    st.sums = true;
    st.xpats = std::min<int64_t>(st.m, 2);
    st.wpats = std::min<int64_t>(st.n, 3);
    std::vector<std::vector<double>> xr(st.xpats), wr(st.wpats);
    std::vector<double> xs, ws;
    // x patterns and w patterns come from independent streams; a w pattern's x part is unused.
    for (int64_t p = 0; p < std::max(st.xpats, st.wpats); ++p) {
      sums_rows(st.k, seed ^ (0x1111 * (p + 1)), seed ^ (0x2222 * (p + 1)), xs, ws);
      if (p < st.xpats) xr[p] = xs;
      if (p < st.wpats) wr[p] = ws;
    }
    // Each pattern converted once (exact in bf16), then copied to its rows in parallel.
    std::vector<std::vector<bf16>> xb(st.xpats), wb(st.wpats);
    for (int64_t p = 0; p < st.xpats; ++p)
      for (double v : xr[p]) xb[p].push_back(bf_exact(v));
    for (int64_t p = 0; p < st.wpats; ++p)
      for (double v : wr[p]) wb[p].push_back(bf_exact(v));
    kc::parallel_for(st.m + st.n, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const auto& src = r < st.m ? xb[r % st.xpats] : wb[(r - st.m) % st.wpats];
        std::copy(src.begin(), src.end(), r < st.m ? &x[r * st.k] : &w[(r - st.m) * st.k]);
      }
    }, fam::grain_for(st.k));
  } else {
    // One stream a row. Activations over 2^-3 .. 2^4, weights over 2^-5 .. 2^1: both signs, no zeros.
    // Gate 1's rows repeat kPlantPatterns streams (x row r pattern r % P, w row r pattern P + r % P),
    // so its reference evaluates only the distinct rows; each pattern is drawn once and copied.
    const bool nf = f.kind == FillKind::nonfinite;
    const int64_t P = fam::kPlantPatterns;
    auto draw = [&](uint64_t stream, bool is_x, bf16* row) {
      fam::Rng rng(seed, stream);
      fam::spread_row(rng, row, st.k, is_x ? -3 : -5, is_x ? 3 : 0);
    };
    if (nf) {
      auto pat = [&](int64_t r) { return r % P; };
      fam::fill_from_patterns(x.data(), st.m, st.k, std::min(P, st.m), [&](int64_t p, bf16* row) { draw(uint64_t(p), true, row); },
                              pat);
      fam::fill_from_patterns(w.data(), st.n, st.k, std::min(P, st.n),
                              [&](int64_t p, bf16* row) { draw(uint64_t(P + p), false, row); }, pat);
    } else if (!f.dist.empty()) {
      dist_rows(x, st.m, st.k, c, "x", {-100, 100});
      if (f.dist == fills::kOffset || f.dist == fills::kRange)
        kc::parallel_for(st.n, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) draw(uint64_t(st.m + r), false, &w[r * st.k]);
        });
      else
        dist_rows(w, st.n, st.k, c, "w", {});
    } else {
      kc::parallel_for(st.m + st.n, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r)
          draw(uint64_t(r), r < st.m, r < st.m ? &x[r * st.k] : &w[(r - st.m) * st.k]);
      }, fam::grain_for(st.k));
    }
    if (f.kind == FillKind::nonfinite) {
      const plants::Plant& p = plants::at(plant_list(), f.plant, "dense");
      const bool in_x = p.operand == "x";
      plants::write(in_x ? (void*)x.data() : (void*)w.data(), DType::bf16, size_t(((in_x ? st.m : st.n) - 1) * st.k),
                    st.k, p.kind, plants::column(p, f, st.k));
      if (p.kind == plants::Kind::pinf_at_zero) x[size_t((st.m - 1) * st.k + plants::column(p, f, st.k))] = bf16{0};
    }
  }
  c.state = st;
}

// The formula in float64 on the inputs as they are (ref_gemm.hpp: k ascending, bit-equal to the
// plain loop). The order of double sums would not matter anyway: double's error on a depth-k sum is
// below k 2^-53 of the magnitude, at k = 16,384 about 2^-39, while the kernels' bounds allow at least
// an fp32 rounding a term (2^-24 of the magnitude or more), 2^15 times wider.
std::vector<Expected> reference(const Case& c) {
  const State& st = std::any_cast<const State&>(c.state);
  auto x = c.get<bf16>("x");
  auto w = c.get<bf16>("w");
  Expected e;
  e.name = "y";
  e.exact_sums = true;
  fam::ExpectedFill dst(e, c.fill(), size_t(st.m * st.n), c.buffer("y").bytes.data());
  // Gates 1 and 4 fill rows from a few patterns: each distinct pair of rows (equal bytes, checked)
  // is evaluated once. Random fills have no equal rows and take the whole GEMM.
  const auto xc = fam::row_classes({{x.data(), size_t(st.k) * sizeof(bf16)}}, st.m);
  const auto wc = fam::row_classes({{w.data(), size_t(st.k) * sizeof(bf16)}}, st.n);
  if (fam::few_classes(xc, wc)) {
    const auto xs = fam::gather_rows(x, st.k, xc), ws = fam::gather_rows(w, st.k, wc);
    const int64_t dx = int64_t(xc.first.size()), dw = int64_t(wc.first.size());
    std::vector<double> y(size_t(dx * dw)), m(y.size());
    fam::ref_dense(xs.data(), ws.data(), dx, dw, st.k, y.data(), m.data());
    dst.scatter(y, m, xc, wc);
  } else if (!fam::ref_resident_took(c.buffer("y").bytes.data(), c.fill(), st.m, st.n, st.k,
                                     [&](const RefDevice& d, std::unique_ptr<RefResident>& r) {
                                       return d.dense_resident ? d.dense_resident(x.data(), w.data(), st.m, st.n, st.k, r)
                                                               : std::string();
                                     })) {
    fam::ref_dense(x.data(), w.data(), st.m, st.n, st.k, dst.want(), dst.mag());
  }
  std::vector<Expected> out;
  out.push_back(std::move(e));  // moved: `return {e}` would copy gigabytes at the largest shapes
  return out;
}

std::vector<std::vector<double>> simulate(const Case& c, SumFormat f, SumOrder o) {
  const State& st = std::any_cast<const State&>(c.state);
  auto x = c.get<bf16>("x");
  auto w = c.get<bf16>("w");
  std::vector<double> out(size_t(st.m * st.n));
  auto one = [&](int64_t m, int64_t n, std::vector<double>& t) {
    for (int64_t j = 0; j < st.k; ++j) t[j] = bf(x[m * st.k + j]) * bf(w[n * st.k + j]);
    return replay_sum(t.data(), t.size(), f, o);
  };
  if (st.sums) {
    // Rows of one pattern hold the same values: replay each distinct pair once.
    std::vector<double> t(size_t(st.k));
    std::vector<double> r(size_t(st.xpats * st.wpats));
    for (int64_t a = 0; a < st.xpats; ++a)
      for (int64_t b = 0; b < st.wpats; ++b) r[a * st.wpats + b] = one(a, b, t);
    fam::expand_patterns(r, st.xpats, st.wpats, st.m, st.n, out);
  } else {
    kc::parallel_for(st.n, [&](int64_t b, int64_t en) {
      std::vector<double> t(size_t(st.k));
      for (int64_t n = b; n < en; ++n)
        for (int64_t m = 0; m < st.m; ++m) out[m * st.n + n] = one(m, n, t);
    }, fam::grain_for(st.k));
  }
  std::vector<std::vector<double>> res;
  res.push_back(std::move(out));
  return res;
}

}  // namespace

double slice_depth(int64_t k, int64_t slices, int64_t meet) {
  slices = std::max<int64_t>(1, slices);
  return double((k + slices - 1) / slices + meet);
}

void sums_rows(int64_t k, uint64_t xseed, uint64_t wseed, std::vector<double>& xs, std::vector<double>& ws) {
  if (k < 4) throw Error("dense: gate 4's fill needs k >= 4, got " + std::to_string(k));
  xs.assign(size_t(k), 0);
  ws.assign(size_t(k), 0);
  // nb big terms at each end; 32 (one a lane) once k leaves room for small terms between them.
  int64_t nb = std::min<int64_t>(32, (k - 1) / 2 - 1);
  fam::Rng rx(xseed), rw(wseed);
  for (int64_t j = 0; j < nb; ++j) {
    xs[j] = 512, ws[j] = 256;
    xs[k - 1 - j] = -512, ws[k - 1 - j] = 256;
  }
  // Small terms, mirrored: x antisymmetric, w symmetric (the middle of an odd row gets x = 0).
  for (int64_t j = nb; j < k - nb; ++j) {
    int64_t mj = k - 1 - j;
    if (mj < j) break;
    int64_t wv = rw.range(1, 31) * (rw.coin() ? -1 : 1);
    int64_t xv = mj == j ? 0 : rx.range(-15, 15);
    xs[j] = double(xv), xs[mj] = double(-xv);
    ws[j] = ws[mj] = double(wv);
  }
  // The result: position nb's partner holds x = 1 where the mirror would give 0.
  xs[nb] = 0;
  xs[k - 1 - nb] = 1;
}

Entry projection(DType out) {
  if (out != DType::bf16 && out != DType::f32) throw Error("dense::projection: out must be bf16 or f32");
  Entry e;
  e.rig.prepare = [out](Case& c) { prepare(c, out); };
  e.rig.reference = reference;
  e.rig.simulate = simulate;
  plants::set(e.rig, plant_list());
  e.rig.fills = kFills;
  return e;
}

}  // namespace kc::dense
