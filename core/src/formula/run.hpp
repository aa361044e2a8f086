// What a formula declares (Def) and one evaluation of it on a case (Run): the harness's side of
// kc/formula.hpp.
#pragma once
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kc/formula.hpp"

namespace kc::formula::detail {

enum class Kind : uint8_t { in, ids, out, codes };

// An input's `values` table by shape: `values` depends on the shape and the index alone, so each
// shape's table is computed once however many cases and gates fill it (a rotary cache of 4,096 rows
// of pow and cos took most of its entry's time). The last few shapes are kept.
class ValuesMemo {
 public:
  using Table = std::shared_ptr<const std::vector<double>>;
  Table get(const std::string& shape, const std::function<std::vector<double>()>& make);

 private:
  static constexpr size_t kKept = 8;
  std::mutex m_;
  std::deque<std::pair<std::string, Table>> kept_;
};

struct Buffer {
  Buffer(std::string n, Kind k, DType t, Extents e) : name(std::move(n)), kind(k), type(t), ext(std::move(e)) {}
  std::string name;
  Kind kind;
  DType type;  // codes: u8 (e2m1 two a byte) or i8
  Extents ext;
  In opts{};
  std::string table;  // ids: the table they index ("" for ids below `count`)
  int64_t count = 0;
  BadId bad = BadId::never;
  Code code = Code::e4m3;
  std::string rule;  // a stated rule's text ("" none)
  Rule rule_kind = Rule::exact;
  std::shared_ptr<ValuesMemo> memo = std::make_shared<ValuesMemo>();
  bool input() const { return kind == Kind::in || kind == Kind::ids; }
};

struct Block {
  std::vector<std::string> dims;
  std::function<void(Ctx<double>&)> ref;
  std::function<void(Ctx<Track>&)> track;
};

struct Def {
  std::vector<Buffer> bufs;
  std::vector<std::string> fills;
  std::vector<Block> blocks;
  int find(std::string_view name) const;  // -1 when absent
};

// reference: float64; track: Track; replay: float64 with each sum replayed in fp16 or bf16.
enum class Mode : uint8_t { reference, track, replay };

// An output's values as the evaluation stores them, per element.
struct Stored {
  std::vector<double> want, mag, err, lo, hi;
  std::vector<uint8_t> pinned, written;
};

struct Run {
  const Def& def;
  const Case& c;
  Mode mode;
  SumFormat format = SumFormat::f16;
  SumOrder order = SumOrder::chain;
  bool declared = false;  // the spec declares its sums (gate 4 applies; gamma(depth) on m)
  double gamma = 0;       // gamma(depth) at the case's shape
  double ulps[7] = {2, 1, 2, 2, 2, 2, 2};  // expf, logf, tanhf, erff, rsqrtf, sinf, cosf: declared or assumed
  std::vector<std::vector<double>> data;  // inputs, as stored
  std::vector<std::vector<int64_t>> ext;  // every buffer's extents at the case's shape
  std::vector<Stored> outs;               // by buffer index (outputs alone filled)
  const Block* block = nullptr;
  std::atomic<bool> summed{false};
  Run(const Def& d, const Case& cs, Mode m);
  // A buffer at a coordinate of the block: the offset its fixed extents give, and its free ones.
  Free free_of(int buf, const int64_t* coords, int64_t& base, int skip_first = 0) const;
};

// The current gamma(depth), for Track's operators (each evaluating thread sets it).
extern thread_local double tl_gamma;

// Evaluates every block of the formula on a run (all outputs written, each once).
void evaluate(Run& r);
Interval interval_of(const Track& x);
double error_of(const Track& x);
// The grid of v (the exponent of its lowest set bit); INT_MAX for 0.
int low_bit(double v);
// Ctx::centred_squares and Ctx::welford on a row's values (moments.cpp): float64's sum of squares
// around `mean`; Track's interval of the kernel's, around the kernel's mean `mean` (gamma: the sum's
// gamma(depth)); Welford's chain's intervals of its mean and m2, about float64's two-pass values.
double centred_squares(const double* x, int64_t n, double mean);
Track centred_squares(const double* x, int64_t n, const Track& mean, double gamma);
Moments<Track> welford(const double* x, int64_t n);
double code_round(Code c, double v);  // what a conversion to the code format gives, as a value
Interval code_interval(Code c, const Interval& iv);

}  // namespace kc::formula::detail
