// Building blocks of the input families, public for a formula no family has: a seeded generator
// and per-core streams, buffers of a runtime element type, the spread and named fills, gate 1's
// plants into a [rows x cols] operand, gate 4's integer rows and their fp16/bf16 replays, and fp32
// steps on intervals. The rows, dense and affine families are built from these; docs/custom.md
// shows a rig of a few tens of lines made of them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kc/families/fills.hpp"
#include "kc/families/plants.hpp"
#include "kc/numeric.hpp"
#include "kc/rig.hpp"

namespace kc::blocks {

// splitmix64: small, fast, and the same sequence on every machine.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % uint64_t(hi - lo + 1)); }
  bool coin() { return next() >> 63; }
};
// A generator for one buffer of a case: the case's seed, mixed with the buffer's name.
Rng rng_for(const Case& c, const std::string& buffer);
// Runs fn(i, rng) for i in [0, n) on every core, each i with its own stream drawn from r (r advances
// by one draw): a fill split over cores stays the same for a seed whatever the core count.
void each_stream(Rng& r, int64_t n, const std::function<void(int64_t, Rng&)>& fn);

// An operand's [rows x cols] view: plants go into its middle row, fills draw it row by row.
struct Dims {
  int64_t rows, cols;
};
Dims dims_of(const Case& c);  // the shape's rows and cols; throws Error without them, or with one < 1

// A buffer of a runtime element type: declared through Case's typed API, written and read as doubles.
class Buf {
 public:
  Buf(Case& c, const std::string& name, DType t, size_t count, Role role);
  size_t size() const { return count_; }
  DType type() const { return type_; }
  void* data() const { return data_; }
  // Rounds to nearest in the buffer's type (for the random fills).
  void set(size_t i, double v) { store_from_double(data_, type_, i, v); }
  // Stores a value the type must hold exactly (integer fills, plants); throws if it cannot.
  void set_exact(size_t i, double v);
  double get(size_t i) const { return load_as_double(data_, type_, i); }

 private:
  void* data_;
  DType type_;
  size_t count_;
};

// The references' result, each Expected moved in (a braced list would copy every vector:
// gigabytes at prompt shapes).
template <class... E> std::vector<Expected> results(E&&... e) {
  std::vector<Expected> v;
  (v.push_back(std::move(e)), ...);
  return v;
}

// Every element of a buffer as a double (exact).
std::vector<double> read(const Case& c, std::string_view name);

// A random value with a spread of magnitudes and signs: +-(1 + U) * 2^e, e in [emin, emax].
double spread(Rng& r, int emin, int emax, bool sign = true);

// Random fill of a [n] buffer with spread values.
void fill_spread(Buf& b, Rng& r, int emin, int emax, bool sign = true);

// Gate 1 (plants.hpp): each operand's plants, today's four first. A plant goes into the middle row
// of a [rows x cols] operand or, when per_row is false, into a [cols] operand.
using plants::Plant;
// The row a plant goes into (the middle row: rows on both sides stay finite).
int64_t plant_row(const Dims& d);
// The plant's column: Fill::pos when set (kept inside the row), else the plant's own column (the
// last by default, which sits in a ragged tail at most shapes).
int64_t plant_col(const Plant& p, const Fill& f, const Dims& d);
// Applies the case's plant if it names this operand.
void plant_if(Buf& b, const Case& c, const std::vector<Plant>& plants, const std::string& name, const Dims& d,
              bool per_row);

// Gates 2 and 3's named distributions (fills.hpp): where Fill::dist is set, fills operand `name`
// with it (range: exponents r) and returns true; else leaves b alone and returns false.
bool fill_dist(Buf& b, const Case& c, const std::string& name, const Dims& d, bool per_row, const fills::Range& r = {});

// Gate 4: one row of integers whose every partial sum, in any order, stays below 2^23 in size, so
// fp32 sums are exact. The first half holds large positive terms, the second half their negatives in
// reverse order, and the row sums to exactly 1; one term is at least 2^16 when the type can hold it,
// so an fp16 sum overflows in every order. Every value is exact in `t`. With weights w (a dot's
// [cols] operand: small integers, symmetric, w[0] = w[cols-1] = 1) the terms x[j] w[j] are built so.
std::vector<double> mirrored_row(Rng& r, int64_t cols, DType t, const std::vector<double>& w = {});
// Gate 4 for sums of squares: integers whose squares sum to between 2^20 and 2^23, one of them with
// a square of at least 2^16 (an fp16 sum overflows in every order). `cap` bounds |value| so that
// (value + a small residual) stays exact in bf16.
std::vector<double> squares_row(Rng& r, int64_t cols, DType t, int64_t cap = 1 << 20);

// Does each fp16 and bf16 replay of these terms (three orders) differ from the exact sum by at
// least `by` (or come out non-finite)? The integer fills redraw a row until they do.
bool replays_miss(const std::vector<double>& terms, double exact, double by);

// The six (format, order) replays gate 4 runs.
struct Replay {
  SumFormat f;
  SumOrder o;
};
inline constexpr Replay kReplays[] = {{SumFormat::f16, SumOrder::chain},  {SumFormat::f16, SumOrder::halves},
                                      {SumFormat::f16, SumOrder::lanes32}, {SumFormat::bf16, SumOrder::chain},
                                      {SumFormat::bf16, SumOrder::halves}, {SumFormat::bf16, SumOrder::lanes32}};

// The assumed error of a library function in fp32 ulps: the spec's .ulp(name, n) when it declares
// one, else `fallback` (what the family assumes of a kernel that does not say).
double declared_ulps(const Case& c, const std::string& function, double fallback);
// One fp32 step on an interval: widened by the step's rounding (`ulps` fp32 ulps; 0.5 for a
// correctly rounded operation) and fp32's subnormal floor.
Interval fp32_step(const Interval& v, double ulps = 0.5);
// sqrt on an interval, correctly rounded ends stepped outward.
Interval iv_sqrt(const Interval& a);

}  // namespace kc::blocks
