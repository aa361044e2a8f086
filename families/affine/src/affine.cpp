// The affine family: MLX's affine-quantized projections (see kc/families/affine.hpp).
#include "kc/families/affine.hpp"

#include <any>
#include <cmath>
#include <limits>
#include <string>

#include "dense/src/dense_detail.hpp"
#include "kc/families/fills.hpp"
#include "kc/families/plants.hpp"
#include "dense/src/ref_gemm.hpp"
#include "kc/numeric.hpp"

namespace kc::affine {
namespace {

using fam::bf;
using fam::bf_exact;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct State {
  int bits = 4, group = 64;
  int64_t m = 0, n = 0, k = 0, g = 0, wpr = 0;
  bool sums = false;
  int64_t xpats = 0, wpats = 0;
};

// Gate 1's plants: today's eleven first (their indices keep their meaning), then the rest
// (plants.hpp). s and b plants go to the group holding the column. Whole rows: a masked row of x,
// and all of W row n's scales, or biases, -Inf (+Inf is the mirror, a NaN row one NaN).
struct AffinePlant {
  plants::Plant p;
  bool s_and_b = false;  // +Inf in s with -Inf in b, in one group
  std::string label;     // today's name where it differs from plants::name (group 0 by default)
};
const std::vector<AffinePlant>& plant_list() {
  static const std::vector<AffinePlant> list = [] {
    using plants::Kind;
    std::vector<AffinePlant> v;
    for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf, Kind::both}) v.push_back({{"x", k}});
    for (const char* o : {"s", "b"})
      for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf})
        v.push_back({{o, k, plants::At::first}, false, plants::name({o, k}) /* no "at the first column" */});
    v.push_back({{"s", Kind::pinf, plants::At::first}, true, "+Inf in s and -Inf in b"});
    for (auto& p : plants::extras({{"x", plants::kMaskRow}, {"s", plants::kMaskRow}, {"b", plants::kMaskRow}}))
      v.push_back({std::move(p)});
    return v;
  }();
  return list;
}
// Rig::plants_at_edges: today's eleven and the whole rows.
std::vector<int> edge_plants() {
  std::vector<int> v;
  for (int i = 0; i < int(plant_list().size()); ++i)
    if (i < 11 || plants::whole_row(plant_list()[size_t(i)].p.kind)) v.push_back(i);
  return v;
}
std::vector<std::string> plant_names() {
  std::vector<std::string> n;
  for (const auto& p : plant_list()) n.push_back(p.label.empty() ? plants::name(p.p) : p.label);
  return n;
}

// Fills for gates 2 and 3 (x only: the weights keep their spread): signed zeros, a large offset
// over signed weights (cancellation), rows of one sign, magnitudes from 2^-100 to 2^100.
const std::vector<std::string> kFills = {fills::kZeros, fills::kOffset, fills::kSign, fills::kRange};

void check_params(int bits, int group) {
  if (bits != 2 && bits != 3 && bits != 4 && bits != 5 && bits != 6 && bits != 8)
    throw Error("affine: bits must be 2, 3, 4, 5, 6 or 8, got " + std::to_string(bits));
  if (group != 32 && group != 64 && group != 128)
    throw Error("affine: group must be 32, 64 or 128, got " + std::to_string(group));
}

void prepare(Case& c, int bits, int group, DType out) {
  const Shape& sh = c.shape();
  State st;
  st.bits = bits, st.group = group;
  st.m = sh["m"], st.n = sh["n"], st.k = sh["k"];
  if (st.m < 1 || st.n < 1 || st.k < group || st.k % group != 0)
    throw Error("affine: k must be a positive multiple of the group (" + std::to_string(group) + ") at " + sh.str());
  st.g = st.k / group;
  st.wpr = words_per_row(st.k, bits);
  auto x = c.in<bf16>("x", size_t(st.m * st.k));
  auto q = c.in<uint32_t>("q", size_t(st.n * st.wpr));
  auto s = c.in<bf16>("s", size_t(st.n * st.g));
  auto b = c.in<bf16>("b", size_t(st.n * st.g));
  if (out == DType::bf16)
    c.out<bf16>("y", size_t(st.m * st.n));
  else
    c.out<float>("y", size_t(st.m * st.n));
  const Fill& f = c.fill();
  const uint64_t seed = c.seed();
  const uint32_t qmax = (1u << bits) - 1;
  if (f.kind == FillKind::sums) {
    st.sums = true;
    st.xpats = std::min<int64_t>(st.m, 2);
    st.wpats = std::min<int64_t>(st.n, 3);
    std::vector<std::vector<double>> xr(st.xpats);
    std::vector<double> xs, bs;
    std::vector<uint32_t> qs;
    double sv = 1;
    std::vector<uint32_t> words(size_t(st.wpr));
    for (int64_t p = 0; p < std::max(st.xpats, st.wpats); ++p) {
      sums_rows(st.k, bits, group, seed ^ (0x1111 * (p + 1)), seed ^ (0x2222 * (p + 1)), xs, sv, bs, qs);
      if (p < st.xpats) xr[p] = xs;
      if (p < st.wpats) {
        pack_row(qs.data(), st.k, bits, words.data());
        for (int64_t n = p; n < st.n; n += st.wpats) {
          std::copy(words.begin(), words.end(), q.begin() + n * st.wpr);
          for (int64_t g = 0; g < st.g; ++g) s[n * st.g + g] = bf_exact(sv), b[n * st.g + g] = bf_exact(bs[g]);
        }
      }
    }
    // Each x pattern converted once (exact in bf16), then copied to its rows on every core.
    std::vector<std::vector<bf16>> xb(st.xpats);
    for (int64_t p = 0; p < st.xpats; ++p)
      for (double v : xr[p]) xb[p].push_back(bf_exact(v));
    kc::parallel_for(st.m, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) std::copy(xb[i % st.xpats].begin(), xb[i % st.xpats].end(), &x[i * st.k]);
    });
    c.state = st;
    return;
  }
  // One stream a row: x row r stream r, W row n stream m + n. Gate 1's rows repeat kPlantPatterns
  // streams (x row r pattern r % P, W row n pattern P + n % P), so its reference evaluates only the
  // distinct rows; each pattern is drawn once and copied.
  const bool nf = f.kind == FillKind::nonfinite;
  const int64_t P = fam::kPlantPatterns;
  auto draw_x = [&](uint64_t stream, bf16* row) {
    fam::Rng rng(seed, stream);
    fam::spread_row(rng, row, st.k, -3, 3);
    if (nf)
      for (int64_t j = 0; j < st.k; ++j) row[j].bits &= 0x7fff;  // |v| by its sign bit
  };
  // Random fills draw the packed words themselves: whole words of uniform bits are codes uniform over
  // [0, 2^bits) (rows are whole words). Gate 1's codes are drawn one by one in [1, qmax].
  auto draw_w = [&](uint64_t stream, uint32_t* qw, bf16* sr, bf16* br) {
    fam::Rng rng(seed, stream);
    if (nf) {
      std::vector<uint32_t> codes(size_t(st.k));
      for (int64_t j = 0; j < st.k; ++j) codes[j] = uint32_t(rng.range(1, qmax));
      pack_row(codes.data(), st.k, bits, qw);
    } else {
      for (int64_t j = 0; j < st.wpr; j += 2) {
        const uint64_t z = rng.next();
        qw[j] = uint32_t(z);
        if (j + 1 < st.wpr) qw[j + 1] = uint32_t(z >> 32);
      }
    }
    for (int64_t g = 0; g < st.g; ++g) {
      bf16 sv = fam::spread_bf16(rng, -7, -4);
      sr[g] = nf ? bf16{uint16_t(sv.bits & 0x7fff)} : sv;
      br[g] = fam::spread_bf16(rng, -5, -2);
    }
  };
  if (nf) {
    auto pat = [&](int64_t r) { return r % P; };
    fam::fill_from_patterns(x.data(), st.m, st.k, std::min(P, st.m), [&](int64_t p, bf16* row) { draw_x(uint64_t(p), row); },
                            pat);
    const int64_t pw = std::min(P, st.n);
    std::vector<uint32_t> pq(size_t(pw * st.wpr));
    std::vector<bf16> ps(size_t(pw * st.g)), pb(ps.size());
    for (int64_t p = 0; p < pw; ++p) draw_w(uint64_t(P + p), &pq[p * st.wpr], &ps[p * st.g], &pb[p * st.g]);
    fam::copy_patterns(pq.data(), q.data(), st.n, st.wpr, pat);
    fam::copy_patterns(ps.data(), s.data(), st.n, st.g, pat);
    fam::copy_patterns(pb.data(), b.data(), st.n, st.g, pat);
  } else {
    kc::parallel_for(st.m + st.n, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        if (r < st.m) {
          draw_x(uint64_t(r), &x[r * st.k]);
        } else {
          const int64_t n = r - st.m;
          draw_w(uint64_t(r), &q[n * st.wpr], &s[n * st.g], &b[n * st.g]);
        }
      }
    }, fam::grain_for(st.k));
  }
  if (!nf && !f.dist.empty()) {  // x from the named distribution, W as drawn above
    const uint64_t xs = fills::seed_for(seed, "x", f.dist);
    std::vector<double> row(static_cast<size_t>(st.k));
    for (int64_t i = 0; i < st.m; ++i) {
      fills::row(f.dist, DType::bf16, xs, i, row, {-100, 100});
      for (int64_t j = 0; j < st.k; ++j) x[size_t(i * st.k + j)] = bf_exact(row[size_t(j)]);
    }
  }
  if (nf) {
    if (f.plant < 0 || f.plant >= int(plant_list().size())) throw Error("affine: no plant " + std::to_string(f.plant));
    const AffinePlant& ap = plant_list()[size_t(f.plant)];
    const plants::Plant& p = ap.p;
    const int64_t col = plants::column(p, f, st.k);
    if (p.operand == "x") {
      plants::write(x.data(), DType::bf16, size_t((st.m - 1) * st.k), st.k, p.kind, col);
    } else if (ap.s_and_b) {
      const size_t at = size_t((st.n - 1) * st.g + col / group);
      s[at] = bf_exact(kInf), b[at] = bf_exact(-kInf);
    } else {
      // One value a group: the group holding the column.
      plants::write(p.operand == "s" ? s.data() : b.data(), DType::bf16, size_t((st.n - 1) * st.g), st.g, p.kind,
                    col / group);
    }
  }
  c.state = st;
}

// One W row unpacked: codes as doubles, scales and biases widened.
struct WRow {
  std::vector<double> q, s, b;
};
void unpack(const Case& c, const State& st, int64_t n, WRow& r) {
  auto q = c.get<uint32_t>("q");
  auto s = c.get<bf16>("s");
  auto b = c.get<bf16>("b");
  r.q.resize(size_t(st.k));
  r.s.resize(size_t(st.g));
  r.b.resize(size_t(st.g));
  for (int64_t j = 0; j < st.k; ++j) r.q[j] = double(code_at(&q[n * st.wpr], j, st.bits));
  for (int64_t g = 0; g < st.g; ++g) r.s[g] = bf(s[n * st.g + g]), r.b[g] = bf(b[n * st.g + g]);
}

// The factored form in float64 on the inputs as they are (ref_gemm.hpp: per group k ascending, then
// the group's scale and bias, groups ascending; bit-equal to the plain loop). As for dense, the
// order of double sums would not matter: their error is far below any fp32 kernel's bound.
std::vector<Expected> reference(const Case& c) {
  const State& st = std::any_cast<const State&>(c.state);
  auto x = c.get<bf16>("x");
  auto q = c.get<uint32_t>("q");
  auto s = c.get<bf16>("s");
  auto b = c.get<bf16>("b");
  const fam::AffineW w{q.data(), s.data(), b.data(), st.bits, st.group, st.wpr};
  Expected e;
  e.name = "y";
  e.exact_sums = true;
  fam::ExpectedFill dst(e, c.fill(), size_t(st.m * st.n), c.buffer("y").bytes.data());
  // Gates 1 and 4 fill rows from a few patterns: each distinct pair of rows (equal bytes of x, or of
  // q, s and b, checked) is evaluated once. Random fills have no equal rows and take the whole GEMM.
  const auto xc = fam::row_classes({{x.data(), size_t(st.k) * sizeof(bf16)}}, st.m);
  const auto wc = fam::row_classes({{q.data(), size_t(st.wpr) * sizeof(uint32_t)},
                                    {s.data(), size_t(st.g) * sizeof(bf16)},
                                    {b.data(), size_t(st.g) * sizeof(bf16)}},
                                   st.n);
  if (fam::few_classes(xc, wc)) {
    const auto xs = fam::gather_rows(x, st.k, xc);
    const auto qs = fam::gather_rows(q, st.wpr, wc);
    const auto ss = fam::gather_rows(s, st.g, wc), bs = fam::gather_rows(b, st.g, wc);
    const int64_t dx = int64_t(xc.first.size()), dw = int64_t(wc.first.size());
    std::vector<double> y(size_t(dx * dw)), m(y.size());
    fam::ref_affine(xs.data(), fam::AffineW{qs.data(), ss.data(), bs.data(), st.bits, st.group, st.wpr}, dx, dw, st.k,
                    y.data(), m.data());
    dst.scatter(y, m, xc, wc);
  } else if (!fam::ref_resident_took(c.buffer("y").bytes.data(), c.fill(), st.m, st.n, st.k,
                                     [&](const RefDevice& d, std::unique_ptr<RefResident>& r) {
                                       return d.affine_resident ? d.affine_resident(x.data(), w, st.m, st.n, st.k, r)
                                                                : std::string();
                                     })) {
    fam::ref_affine(x.data(), w, st.m, st.n, st.k, dst.want(), dst.mag());
  }
  std::vector<Expected> out;
  out.push_back(std::move(e));  // moved: `return {e}` would copy gigabytes at the largest shapes
  return out;
}

std::vector<std::vector<double>> simulate(const Case& c, SumFormat f, SumOrder o) {
  const State& st = std::any_cast<const State&>(c.state);
  auto x = c.get<bf16>("x");
  std::vector<double> out(size_t(st.m * st.n));
  auto one = [&](int64_t m, const WRow& r, std::vector<double>& t) {
    for (int64_t j = 0; j < st.k; ++j) {
      int64_t g = j / st.group;
      t[j] = bf(x[m * st.k + j]) * (r.s[g] * r.q[j] + r.b[g]);
    }
    return replay_sum(t.data(), t.size(), f, o);
  };
  if (st.sums) {
    std::vector<double> t(size_t(st.k)), rr(size_t(st.xpats * st.wpats));
    WRow r;
    for (int64_t bq = 0; bq < st.wpats; ++bq) {
      unpack(c, st, bq, r);
      for (int64_t a = 0; a < st.xpats; ++a) rr[a * st.wpats + bq] = one(a, r, t);
    }
    fam::expand_patterns(rr, st.xpats, st.wpats, st.m, st.n, out);
  } else {
    kc::parallel_for(st.n, [&](int64_t lo, int64_t hi) {
      std::vector<double> t(size_t(st.k));
      WRow r;
      for (int64_t n = lo; n < hi; ++n) {
        unpack(c, st, n, r);
        for (int64_t m = 0; m < st.m; ++m) out[m * st.n + n] = one(m, r, t);
      }
    });
  }
  std::vector<std::vector<double>> res;
  res.push_back(std::move(out));
  return res;
}

}  // namespace

int64_t words_per_row(int64_t k, int bits) {
  if ((k * bits) % 32 != 0)
    throw Error("affine: a row of " + std::to_string(k) + " " + std::to_string(bits) + "-bit codes is not whole 32-bit words");
  return k * bits / 32;
}

void pack_row(const uint32_t* codes, int64_t k, int bits, uint32_t* words) {
  int64_t nw = words_per_row(k, bits);
  std::fill(words, words + nw, 0u);
  const uint32_t mask = (1u << bits) - 1;
  for (int64_t i = 0; i < k; ++i) {
    uint64_t bit = uint64_t(i) * bits;
    uint64_t v = uint64_t(codes[i] & mask) << (bit % 32);
    words[bit / 32] |= uint32_t(v);
    if ((bit % 32) + bits > 32) words[bit / 32 + 1] |= uint32_t(v >> 32);
  }
}

uint32_t code_at(const uint32_t* words, int64_t i, int bits) {
  uint64_t bit = uint64_t(i) * bits;
  uint64_t lo = words[bit / 32];
  if ((bit % 32) + bits > 32) lo |= uint64_t(words[bit / 32 + 1]) << 32;
  return uint32_t(lo >> (bit % 32)) & ((1u << bits) - 1);
}

void sums_rows(int64_t k, int bits, int group, uint64_t xseed, uint64_t wseed, std::vector<double>& xs, double& s,
               std::vector<double>& b, std::vector<uint32_t>& q) {
  check_params(bits, group);
  if (k < 64 || k % group != 0 || k % 8 != 0)
    throw Error("affine: gate 4's fill needs k >= 64, a multiple of the group, got " + std::to_string(k));
  const int64_t G = k / group;
  const uint32_t qmax = (1u << bits) - 1;
  fam::Rng rx(xseed), rw(wseed);
  // One scale a row: 2 only where 2 * qmax + 32 keeps |x w| below 512 with |x| >= 1.
  s = (2.0 * qmax + 32 <= 496 && rw.coin()) ? 2.0 : 1.0;
  b.assign(size_t(G), 0);
  for (int64_t g = 0; g <= (G - 1) / 2; ++g) b[g] = b[G - 1 - g] = double(rw.range(1, 4));
  // The groups holding the 32 end positions take bias 32 - s, so code 1 there weighs 32.
  for (int64_t j : {int64_t(0), int64_t(31), k - 32, k - 1}) b[j / group] = 32 - s;
  // Codes: runs of 8 palindromic, the row mirrored about its middle.
  q.assign(size_t(k), 0);
  const int64_t runs = k / 8;
  for (int64_t r = 0; r <= (runs - 1) / 2; ++r) {
    uint32_t v[8];
    for (int i = 0; i < 4; ++i) v[i] = v[7 - i] = uint32_t(rw.range(0, qmax));
    for (int i = 0; i < 8; ++i) q[r * 8 + i] = q[(runs - 1 - r) * 8 + i] = v[i];
  }
  for (int64_t j = 0; j < 32; ++j) q[j] = q[k - 1 - j] = 1;
  // x: +-4096 at the 32 end positions (products +-2^17), small mirrored values between.
  double wmax = s * qmax + 32;
  int64_t xmax = std::max<int64_t>(1, std::min<int64_t>(15, int64_t(496 / wmax)));
  xs.assign(size_t(k), 0);
  int64_t nb = std::min<int64_t>(32, (k - 1) / 2 - 1);
  for (int64_t j = 0; j < nb; ++j) xs[j] = 4096, xs[k - 1 - j] = -4096;
  for (int64_t j = nb; j < k - nb; ++j) {
    int64_t mj = k - 1 - j;
    if (mj < j) break;
    int64_t v = mj == j ? 0 : rx.range(-xmax, xmax);
    xs[j] = double(v), xs[mj] = double(-v);
  }
  xs[nb] = 0;
  xs[k - 1 - nb] = 1;
}

Entry projection(int bits, int group, DType out) {
  check_params(bits, group);
  if (out != DType::bf16 && out != DType::f32) throw Error("affine::projection: out must be bf16 or f32");
  Entry e;
  e.rig.prepare = [bits, group, out](Case& c) { prepare(c, bits, group, out); };
  e.rig.reference = reference;
  e.rig.simulate = simulate;
  e.rig.plants = plant_names();
  e.rig.plants_at_scale = 11;  // today's eleven (plant_list): x's four, s's and b's three, s with b
  e.rig.plants_at_edges = edge_plants();
  e.rig.fills = kFills;
  return e;
}

}  // namespace kc::affine
