// Rotary position embedding of queries and keys, fused with a per-head RMS norm of each
// (families/rope/README.md). bf16 q [tokens, heads, dim], k [tokens, kv, dim], i32 positions
// [tokens]; q_out, k_out bf16. Pair i of a head is (i, i + dim/2) in the half-split form (NeoX,
// Llama) or (2i, 2i + 1) in the interleaved form (GPT-J); its angle is pos * theta^(-2i/dim):
// - Angles::computed: the kernel forms it in fp32 as pos * inv_freq (inv_freq an fp32 rounding of
//   the exact value), then sinf and cosf. The float64 reference takes the exact angle; the bound
//   carries the fp32 angle's error (up to about 2^-4 rad at pos 2^20 with inv_freq 1) into cos and
//   sin, so the kernel is judged by what its angle costs, never by a looser rule.
// - Angles::table: cos and sin read from bf16 tables [table, dim] (the values a framework's cache
//   holds, rounded to bf16, each row's dim/2 values twice; `table` a dim of the shape), row = position.
// Rotation: y_a = x_a c - x_b s, y_b = x_b c + x_a s in fp32, rounded once to bf16.
// Norm (per head, weights q_w, k_w bf16 [dim], eps): n = bf16(x rsqrt(mean x^2 + eps)), v = bf16(n w)
// at those two bf16 points, as a framework's RMSNorm module stores them; Norm::before rotates v,
// Norm::after normalises the rotation rounded to bf16. Norm::none rotates x.
#pragma once
#include <cmath>
#include <vector>

#include <kc/formula.hpp>

namespace kc::rope {

enum class Pairs : uint8_t { halves, interleaved };
enum class Angles : uint8_t { computed, table };
enum class Norm : uint8_t { none, before, after };

struct Form {
  Pairs pairs = Pairs::halves;
  Angles angles = Angles::computed;
  Norm norm = Norm::none;
  double theta = 10000, eps = 1e-6;
};

inline constexpr int64_t kMaxPosition = int64_t(1) << 20;  // positions of the computed form: [0, 2^20)
// Gate 4 of the norm forms: a head's one 2^16 squared dominates its sum; a bf16 sum of squares
// drops the small terms (a relative change near 2^-16 in rsqrt) and the bf16 outputs round it away.
inline constexpr const char* kHiddenSums =
    "a head's 2^16 squared dominates its sum; a bf16 sum's loss (about 2^-16 of rsqrt) is below the bf16 outputs' rounding";

// The exact inverse frequency of pair i (a kernel holds an fp32 rounding of it).
inline double inv_freq(int64_t i, int64_t dim, double theta) { return std::pow(theta, -2.0 * double(i) / double(dim)); }
// Element indices of pair i of a head of `dim`.
inline int64_t first(Pairs p, int64_t i, int64_t) { return p == Pairs::halves ? i : 2 * i; }
inline int64_t second(Pairs p, int64_t i, int64_t dim) { return p == Pairs::halves ? i + dim / 2 : 2 * i + 1; }

// The table form's cos (sin) at element `at` of a [table, dim] table: row p, pair at mod dim/2 (a
// row holds its dim/2 values twice, as a framework's cache does), stored as bf16 of the exact value.
// Every case fills the same values: each filling thread keeps those of the last dim and theta.
inline double table_value(const Shape& s, int64_t at, bool sine, double theta) {
  thread_local int64_t dim = 0, rows = 0;
  thread_local double th = 0;
  thread_local std::vector<double> cs;
  const int64_t d = s["dim"], h = d / 2;
  if (d != dim || theta != th || at / d >= rows) {
    dim = d, th = theta, rows = s["table"];
    cs.assign(size_t(2 * rows * h), 0.0);
    for (int64_t p = 0; p < rows; ++p)
      for (int64_t i = 0; i < h; ++i) {
        const double a = double(p) * inv_freq(i, d, theta);
        cs[size_t(2 * (p * h + i))] = std::cos(a);
        cs[size_t(2 * (p * h + i) + 1)] = std::sin(a);
      }
  }
  return cs[size_t(2 * (at / d * h + at % d % h) + (sine ? 1 : 0))];
}

namespace detail {
// One head of `in` (its free extent: dim) into `out`, normed with weights `w` where the form norms.
template <class F> void head(F& f, const Form& form, const char* in, const char* w, const char* out) {
  using N = std::remove_cvref_t<decltype(f.in(in)[0])>;
  auto x = f.in(in);
  const int64_t d = x.size(), h = d / 2;
  auto bf = [&](const N& v) { return f.round(v, DType::bf16); };
  auto norm = [&](const std::vector<N>& v) {  // bf16(bf16(v rsqrt(mean v^2 + eps)) w)
    auto wt = f.in(w);
    N ss = f.sum(d, [&](int64_t k) { return v[size_t(k)] * v[size_t(k)]; });
    N r = f.rsqrt(ss / double(d) + form.eps);
    std::vector<N> o;
    for (int64_t k = 0; k < d; ++k) o.push_back(bf(bf(v[size_t(k)] * r) * wt[k]));
    return o;
  };
  std::vector<N> v;
  for (int64_t k = 0; k < d; ++k) v.push_back(x[k]);
  if (form.norm == Norm::before) v = norm(v);
  const int64_t pos = f.id("positions");
  std::vector<N> y(static_cast<size_t>(d));
  for (int64_t i = 0; i < h; ++i) {
    N c, s;
    if (form.angles == Angles::computed) {
      const N angle = N(double(pos)) * N(inv_freq(i, d, form.theta));  // fp32 pos * fp32 inv_freq
      c = f.cos(angle), s = f.sin(angle);
    } else {
      c = f.row("cos", pos)[i], s = f.row("sin", pos)[i];
    }
    const int64_t a = first(form.pairs, i, d), b = second(form.pairs, i, d);
    y[size_t(a)] = v[size_t(a)] * c - v[size_t(b)] * s;
    y[size_t(b)] = v[size_t(b)] * c + v[size_t(a)] * s;
  }
  if (form.norm == Norm::after) {
    for (auto& e : y) e = bf(e);
    y = norm(y);
  }
  auto o = f.out(out);
  for (int64_t k = 0; k < d; ++k) o[k] = y[size_t(k)];
}
}  // namespace detail

// The contract's formula and buffers; a kernel adds its envelope (.served), and where it norms, its
// sums (.sums(DType::f32, depth)).
inline Entry contract(const Form& form) {
  using namespace kc::formula;
  Formula fm;
  if (form.angles == Angles::table) {
    const double th = form.theta;
    fm.in("cos", DType::bf16, {"table", "dim"}, {.values = [th](const Shape& s, int64_t at) { return table_value(s, at, false, th); }});
    fm.in("sin", DType::bf16, {"table", "dim"}, {.values = [th](const Shape& s, int64_t at) { return table_value(s, at, true, th); }});
    fm.ids("positions", {"tokens"}, "cos");
  } else {
    fm.ids("positions", {"tokens"}, kMaxPosition);
  }
  fm.in("q", DType::bf16, {"tokens", "heads", "dim"}).in("k", DType::bf16, {"tokens", "kv", "dim"});
  if (form.norm != Norm::none) {
    fm.in("q_w", DType::bf16, {"dim"}, {.lo = -1, .hi = 0, .plants = false, .fills = false});
    fm.in("k_w", DType::bf16, {"dim"}, {.lo = -1, .hi = 0, .plants = false, .fills = false});
  }
  fm.out("q_out", DType::bf16, {"tokens", "heads", "dim"}).out("k_out", DType::bf16, {"tokens", "kv", "dim"});
  const bool normed = form.norm != Norm::none;
  fm.each({"tokens", "heads"}, [form, normed](auto& f) { detail::head(f, form, "q", normed ? "q_w" : "", "q_out"); });
  fm.each({"tokens", "kv"}, [form, normed](auto& f) { detail::head(f, form, "k", normed ? "k_w" : "", "k_out"); });
  return fm.entry().range("dim", 2, 2);
}

}  // namespace kc::rope
