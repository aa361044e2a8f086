// What the attention family's entries share (attention.hpp): the batch's lengths and positions, the
// caches' addressing, the inputs read back as doubles, the decode plants and one row's float64
// formula. Internal to core.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "attention_range.hpp"
#include "kc/families/attention.hpp"
#include "kc/families/blocks.hpp"

namespace kc::attention::detail {

using namespace kc::blocks;

inline constexpr int64_t kPad = 8;    // linear slots past the longest sequence; ring slots past the window
inline constexpr int64_t kSpare = 2;  // spare pages in a paged arena

// Keys sequence s holds at the random fill: seq 0 `keys`, the others fewer, the last none from 3 up.
int64_t seq_len(const Geometry& g, int64_t s);
int64_t page_count(const Geometry& g, int64_t len);

// A row's visible keys [lo, end): 0 <= j <= pos, j > pos - window, j < len.
struct Span {
  int64_t lo = 0, end = 0;
  int64_t size() const { return std::max<int64_t>(0, end - lo); }
};
Span visible(const Geometry& g, int64_t len, int64_t pos);

// The decode and split rigs' inputs, read back exactly as stored.
struct Inputs {
  Geometry g;
  std::vector<double> q, k, v;
  std::vector<int32_t> lens, pos, table;
  // Element offset of key j of sequence s, kv head h, in k and v.
  int64_t kv_at(int64_t s, int64_t j, int64_t h) const;
  const double* qrow(int64_t s, int64_t r, int64_t qh) const { return &q[size_t(((s * g.rows + r) * g.q_heads + qh) * g.d)]; }
};
Inputs read_inputs(const Case& c, const Geometry& g);
int64_t kv_offset(const Geometry& g, const std::vector<int32_t>& table, int64_t s, int64_t j, int64_t h);

// Declares and fills every decode / split input for the case's fill (plants included); `prompt`:
// with prompt()'s plants after decode's (attention.hpp).
void prepare_inputs(Case& c, const Geometry& g, bool prompt = false);
// The decode plants for a cache (their names, and Rig's schedule), prompt()'s after them.
void set_plants(Rig& rig, Cache cache, bool prompt = false);
// decode's entry (out, lse over every row), or with `prompt` attention::prompt's: the plants differ.
Entry rows_entry(Cache cache, DType out, Steps st, int64_t page, bool prompt);

// One row's keys (or a chunk's) in float64: exact scores, |q . k|, and the value rows.
struct RowKeys {
  std::vector<double> s, a;
  std::vector<const double*> v;
};
RowKeys row_keys(const Inputs& in, int64_t s, int64_t r, int64_t qh, Span span);
// The grain for a loop inside one row whose steps each cost `width` operations: a few long rows (a
// decode of 128k keys) use every core, the many short rows of a prompt stay one thread each.
inline int64_t wide_grain(int64_t width) { return std::max<int64_t>(1, (int64_t(1) << 18) / std::max<int64_t>(1, width)); }

// The formula on one row's keys: out (d values, o / l) and lse, or with `unnormalized` o, and m, l.
struct RowValue {
  double m = 0, l = 0, lse = 0;
  std::vector<double> o;  // o / l, or o
  bool empty = false;     // m = -Inf: no key, or every score -Inf
};
RowValue row_value(const RowKeys& k, int64_t d, bool unnormalized, LseBase base);
// Replays for gate 4: each score's dot and the key sums in format f, order o.
RowValue row_replay(const Inputs& in, int64_t s, int64_t r, int64_t qh, Span span, SumFormat f, SumOrder o,
                    bool unnormalized, LseBase base);
// Does every key with a finite score hold finite values, and some score is finite? (the range's domain)
bool in_domain(const RowKeys& k, int64_t d);

// Expected's vectors for n outputs (intervals where `ranges`, gate 4's magnitudes where `sums`).
void size_up(Expected& e, const char* name, size_t n, bool ranges, bool sums);
// Outside the range's domain: the value itself where it is not finite or `exact`, else any finite.
void exact_or_any(Expected& e, size_t i, bool exact);
void set_iv(Expected& e, size_t i, const Interval& v);
// Empty::zero, checked as stated on (out, lse): a row whose lse float64 gives as -Inf under the
// rule writes exactly 0 (d values) and -Inf; every other output float64's class. "" when kept.
extern const char* const kRuleText;
std::string check_rule(const Case& c, const std::vector<Expected>& exp, int64_t d);

}  // namespace kc::attention::detail
