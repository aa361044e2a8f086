// A formula written once (docs/formulas.md). An author declares the buffers and writes the arithmetic
// once, as a generic lambda over the number it computes with; the harness runs it with double (the
// float64 reference, on the exact inputs the kernel saw), with Track (each output's magnitude of
// summed terms, and the error of every fp32 operation after the sums, cancellation included, or the
// interval at its rounding points) and with its sums replayed in fp16 and bf16 (gate 4). It builds
// every gate's inputs too: spread values, gate 1's plants, named fills, ids with their own fills, gate
// 4's integers. The author states only what the formula cannot know: the kernel's chain depth
// (.sums), its library functions' ulps (.ulp), a stated rule.
//
//   KC_KERNEL("examples/gelu/bf16", cpu) {
//     return kc::formula::Formula()
//         .in("x", kc::DType::bf16, {"rows", "cols"})
//         .out("y", kc::DType::bf16, {"rows", "cols"})
//         .each({"rows", "cols"}, [](auto& f) { f.out("y")[0] = f.round(0.5 * f.in("x")[0], kc::DType::bf16); })
//         .entry()
//         .served({{"rows", {1, 7}}, {"cols", {64, 1000}}})
//         .launch([](const kc::Buffers& b) { ... });
//   }
//
// Every operation written (+, -, *, /, f.exp, f.sqrt ...) is an fp32 operation of the kernel, rounded
// once; f.sum is a sum whose order the kernel chooses within its declared depth; f.round is a
// rounding point (an intermediate stored narrower and read back). Write the operations in the order
// the kernel does them.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kc/families/fills.hpp"
#include "kc/families/plants.hpp"
#include "kc/numeric.hpp"
#include "kc/spec.hpp"

namespace kc::formula {

// One extent of a buffer: a dim of the shape, or a fixed size (4096).
struct Extent {
  std::string dim;  // "" for a fixed size
  int64_t n = 1;
  Extent(const char* d) : dim(d) {}
  Extent(std::string d) : dim(std::move(d)) {}
  Extent(int64_t fixed) : n(fixed) {}
  Extent(int fixed) : n(fixed) {}
};
using Extents = std::vector<Extent>;

// What gate 4 puts in an input.
enum class Sums : uint8_t {
  // Integers +-(3..15) and one +-2^16 a row (the last extent; 2^15 in fp16): a term holding it, times
  // any other, is past fp16's range, and bf16 drops the small terms beside it. The harness finds
  // each sum exact or not (every term exact in fp32, all on one grid, their magnitudes below 2^24 of
  // it) and keeps gamma(depth) only for those that are not.
  integers,
  same,  // the spread fill: for an input whose sums cannot be exact anyway (exp terms)
};

// How an input is filled. Gates 1-3: spread values +-(1..2) 2^e, e in [lo, hi] (positive: one sign);
// gates 2 and 3 also the formula's named fills (Formula::fills) where `fills`. Gate 1 plants NaN and
// the infinities in it unless `plants` is false: single values at a row's first, middle and last
// place (a row: the last extent), and the whole rows `rows` names. `values`, where set, gives every
// element at every gate instead (a table of constants: a rotary cache), with no plants.
struct In {
  int lo = -4, hi = 3;
  bool positive = false;
  bool plants = true;
  plants::Rows rows{};
  bool fills = true;
  fills::Range range{};
  Sums sums = Sums::integers;
  std::function<double(const Shape&, int64_t)> values;
  // Gate 4's values where the input's own fill knows better than `sums` (exp terms, whose fp32 sum
  // cannot be exact: rows that every fp16 and bf16 replay visibly misses): called once a case with
  // the rows (every extent but the last) and a row's length; it gives every element, each exact in
  // the input's type (a random stream of its own: kc::blocks::rng_for(case, name)).
  std::function<std::vector<double>(const Case&, int64_t rows, int64_t cols)> sums_fill;
};

// What a row read through an id outside its table (< 0 or >= the table's first extent) gives: the
// stated rule for a bad id. Under never the contract serves valid ids alone (no bad id is drawn, and
// one met is an error); otherwise the fill `bad_ids` draws negative and past-the-end ids.
enum class BadId : uint8_t { never, zero, clamp, nan };

// An output stored as codes and compared as the values they decode to, NaN codes included: FP8 (a
// byte each), FP4 (two a byte, the low nibble first), int8. The kernel converts to nearest, ties to
// even, saturating to the largest finite value (NaN stays NaN where the format has one).
enum class Code : uint8_t { e4m3, e5m2, e2m1, int8 };

// A stated rule on one output, checked at gate 1 in place of float64's class: exact (the output
// equals the formula's value: ids in a stated order), or nonfinite (where float64's value is
// infinite, NaN is accepted too). The other outputs keep the class checks.
enum class Rule : uint8_t { exact, nonfinite };

// The number of the tracking pass: the formula's value v, the magnitude m that gamma(depth) acts on
// (the inexact sums' |terms|, carried through the steps after them), the absolute bound a of every
// other error (each fp32 step's rounding, each library function's ulps, the higher-order terms), and
// whether fp32 computes v exactly. After a rounding point (pinned) it is the interval iv instead.
struct Track {
  double v = 0, m = 0, a = 0;
  bool exact = true, pinned = false;
  Interval iv;
  Track() = default;
  Track(double c);  // a constant: exact where fp32 holds it, else either fp32 rounding of it
  static Track input(double x);
};
Track operator+(const Track& x, const Track& y);
Track operator-(const Track& x, const Track& y);
Track operator*(const Track& x, const Track& y);
Track operator/(const Track& x, const Track& y);
Track operator-(const Track& x);
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator+(const Track& x, C c) { return x + Track(double(c)); }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator+(C c, const Track& x) { return Track(double(c)) + x; }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator-(const Track& x, C c) { return x - Track(double(c)); }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator-(C c, const Track& x) { return Track(double(c)) - x; }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator*(const Track& x, C c) { return x * Track(double(c)); }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator*(C c, const Track& x) { return Track(double(c)) * x; }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator/(const Track& x, C c) { return x / Track(double(c)); }
template <class C, class = std::enable_if_t<std::is_arithmetic_v<C>>> Track operator/(C c, const Track& x) { return Track(double(c)) / x; }

// Whether a formula reads a spec's .ulp(function) (expf, logf, tanhf, erff, rsqrtf): those it counts
// in its outputs' own error; any other declared ulp (a kernel's own function, a second count of one)
// is a step beyond the formula, added on |want| as the spec's ops are.
bool reads_ulp(std::string_view function);

// A row's mean and its sum of squared deviations, as Ctx::welford gives them.
template <class N> struct Moments {
  N mean, m2;
};

// The formula's value of a number, for a branch (m == -Inf) or a choice.
inline double value(double x) { return x; }
inline double value(const Track& x) { return x.v; }

namespace detail {
struct Def;
struct Run;
template <class N> N number(double x);
template <> inline double number<double>(double x) { return x; }
template <> inline Track number<Track>(double x) { return Track::input(x); }
template <class N> void store(Run& r, int out, int64_t at, const N& v);
void store_id(Run& r, int out, int64_t at, int64_t v);
// A buffer's elements left free by the iteration (the extents `each` does not fix), row-major.
struct Free {
  int rank = 0;
  int64_t n = 1, ext[4] = {1, 1, 1, 1}, stride[4] = {0, 0, 0, 0};
  int64_t offset(int64_t i) const {
    int64_t off = 0;
    for (int k = rank; k-- > 0;) off += (i % ext[k]) * stride[k], i /= ext[k];
    return off;
  }
};
}  // namespace detail

// An input's elements at the current coordinate. A row read through a bad id reads as its rule says.
template <class N> class View {
 public:
  View(const double* base, detail::Free f, int fill = 0) : base_(base), f_(f), fill_(fill) {}
  int64_t size() const { return f_.n; }
  N operator[](int64_t i) const { return detail::number<N>(raw(i)); }
  double raw(int64_t i) const {  // the stored value (an id, a count), outside any error model
    check(i);
    return fill_ == 0 ? base_[f_.offset(i)] : fill_ == 1 ? 0.0 : NAN;
  }

 private:
  void check(int64_t i) const;
  const double* base_;
  detail::Free f_;
  int fill_;
};

// An output's elements at the current coordinate: assign each once (a number, or an integer id).
template <class N> class Out {
 public:
  struct Ref {
    detail::Run* run;
    int out;
    int64_t at;
    Ref& operator=(const N& v) { return detail::store<N>(*run, out, at, v), *this; }
    template <class I> requires std::is_integral_v<I> Ref& operator=(I v) { return detail::store_id(*run, out, at, int64_t(v)), *this; }
  };
  Out(detail::Run* r, int out, int64_t base, detail::Free f) : run_(r), out_(out), base_(base), f_(f) {}
  int64_t size() const { return f_.n; }
  Ref operator[](int64_t i) const;

 private:
  detail::Run* run_;
  int out_;
  int64_t base_;
  detail::Free f_;
};

// One call of the formula, at one coordinate of its iteration.
template <class N> class Ctx {
 public:
  Ctx(detail::Run* r, const int64_t* coords) : run_(r), coords_(coords) {}
  View<N> in(std::string_view name) const;
  Out<N> out(std::string_view name) const;
  int64_t id(std::string_view ids, int64_t i = 0) const;  // element i of an ids input
  View<N> row(std::string_view table, int64_t id) const;  // the table's row `id`, by the bad-id rule
  int64_t size(std::string_view dim) const;               // a dim of the case's shape

  // A sum of n terms in the order the kernel chooses, within its declared depth; gate 4 replays it.
  template <class F> N sum(int64_t n, F&& term) const { return fold(n, std::forward<F>(term), 0); }
  // The largest of n terms, NaN where any is NaN: exact.
  template <class F> N maximum(int64_t n, F&& term) const { return fold(n, std::forward<F>(term), 1); }
  // The ids of the k largest of v, chosen on the formula's values: descending, a NaN above +Inf,
  // ties to the lower id.
  std::vector<int64_t> top(const View<N>& v, int64_t k) const;
  // sum_j (x_j - mean)^2 over an input's view, around a mean the kernel computed (f.sum(...) / n):
  // each x - mean and its square an fp32 operation, summed as f.sum is. Its interval uses
  // sum (x - mean)^2 = sum (x - mu)^2 + n (mu - mean)^2, so the mean's error enters only squared
  // (Track's own arithmetic would carry it to first order through every x - mean). Gate 4 replays it
  // around the replay's mean; exact where the mean, each difference and square and their sum are.
  N centred_squares(const View<N>& x, const N& mean) const;
  // A row's mean and m2 = sum (x - mean)^2 by Welford's update, one fp32 chain in the view's order
  // (d = x - M; M += d / j; m2 += d (x - M)): float64 gives the formula's two-pass values, Track the
  // intervals proven for the chain (its own depth: the spec's does not enter), gate 4 the replays of
  // the two sums (sum x, then sum (x - mean)^2 around the replay's mean).
  Moments<N> welford(const View<N>& x) const;
  // x, from here carried and checked as the interval [v - E, v + E] its bound gives (no rounding): an
  // output stored from it is checked by interval, as its neighbours past a rounding point are.
  N interval(const N& x) const;

  N exp(const N& x) const;    // expf: the spec's .ulp("expf"), 2 where it states none
  N log(const N& x) const;    // logf: .ulp("logf"), 1
  N tanh(const N& x) const;   // tanhf: .ulp("tanhf"), 2
  N erf(const N& x) const;    // erff: .ulp("erff"), 2
  N sqrt(const N& x) const;   // sqrtf: correctly rounded
  N rsqrt(const N& x) const;  // rsqrtf: .ulp("rsqrtf"), 2
  N sin(const N& x) const;    // sinf: .ulp("sinf"), 2 (CUDA's sinf over its whole range)
  N cos(const N& x) const;    // cosf: .ulp("cosf"), 2
  N abs(const N& x) const;
  N max(const N& x, const N& y) const;  // NaN where either is NaN
  N min(const N& x, const N& y) const;
  N round(const N& x, DType t) const;  // a rounding point: stored as t and read back

 private:
  template <class F> N fold(int64_t n, F&& term, int how) const {
    std::vector<N>& s = scratch();
    const size_t at = s.size();
    for (int64_t k = 0; k < n; ++k) s.push_back(term(k));
    N r = how ? max_of(s.data() + at, n) : sum_of(s.data() + at, n);
    s.resize(at);
    return r;
  }
  static std::vector<N>& scratch();
  N sum_of(const N* t, int64_t n) const;
  N max_of(const N* t, int64_t n) const;
  detail::Run* run_;
  const int64_t* coords_;
};

// The formula's buffers and arithmetic; entry() makes the contract's Entry (prepare, reference,
// simulate, plants, fills, stated rules).
class Formula {
 public:
  Formula();
  Formula& in(const std::string& name, DType t, Extents e, In opts = {});
  // An i32 input of ids into `table`'s first extent, with its own fills at gates 2 and 3 (every id
  // the same row: ids_repeated; every id the table's last row: ids_last; where the rule allows them,
  // negative and past-the-end ids: bad_ids).
  Formula& ids(const std::string& name, Extents e, const std::string& table, BadId bad = BadId::never);
  // i32 ids in [0, count) that index no table (positions up to 2^20), with the same fills: every id
  // the same, every id count - 1 (ids_last).
  Formula& ids(const std::string& name, Extents e, int64_t count);
  Formula& out(const std::string& name, DType t, Extents e);
  Formula& codes(const std::string& name, Code c, Extents e);
  Formula& rule(const std::string& output, const std::string& text, Rule r = Rule::exact);
  Formula& fills(std::vector<std::string> names);  // named fills (kc/families/fills.hpp) run at gates 2, 3
  // The arithmetic, called once for each coordinate of `dims` (every dim of the shape it names);
  // several blocks may each write their own outputs.
  template <class F> Formula& each(std::vector<std::string> dims, F fn) {
    return each_impl(std::move(dims), std::function<void(Ctx<double>&)>(fn), std::function<void(Ctx<Track>&)>(fn));
  }
  Entry entry() const;

 private:
  Formula& each_impl(std::vector<std::string> dims, std::function<void(Ctx<double>&)> d,
                     std::function<void(Ctx<Track>&)> t);
  std::shared_ptr<detail::Def> def_;
};

}  // namespace kc::formula
