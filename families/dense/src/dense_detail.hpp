// What the dense and affine families share (internal to core): a small seeded PRNG, bf16 values
// for the random fills (one stream a row, so fills run on every core and stay the same for a seed
// whatever the core count), and the grouping of equal rows that gates 1 and 4's references use.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <span>
#include <unordered_map>
#include <vector>

#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/ref_device.hpp"
#include "kc/rig.hpp"
#include "kc/types.hpp"

namespace kc::fam {

// splitmix64: one independent stream per (seed, row), so rows can be filled in parallel and a
// case's inputs never depend on the thread count.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed, uint64_t stream = 0) : s(seed ^ (stream + 1) * 0x9e3779b97f4a7c15ull) { next(); }
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1p-53; }          // [0, 1)
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }  // [lo, hi]
  bool coin() { return next() >> 63; }
};

// A bf16 value of random sign with magnitude in [2^elo, 2^(ehi+1)): spread magnitudes, never zero.
// Built from 32 random bits (bit 0 the sign, bits 1-7 the mantissa, bits 8-31 pick the exponent
// by multiply-shift, no division), so one draw of the generator makes two values. elo >= -126, ehi <= 127.
inline bf16 spread_bits(uint32_t z, int elo, int ehi) {
  const uint32_t pick = uint32_t((uint64_t(z >> 8) * uint64_t(ehi - elo + 1)) >> 24);
  return bf16{uint16_t((z & 1) << 15 | (uint32_t(127 + elo) + pick) << 7 | ((z >> 1) & 0x7f))};
}
inline bf16 spread_bf16(Rng& r, int elo, int ehi) { return spread_bits(uint32_t(r.next()), elo, ehi); }
// The same, but one draw in 13 a zero of random sign: inputs that also test how an evaluation keeps
// the sign of a zero sum (+0 + -0 is +0; -0 alone stays -0).
inline bf16 spread_or_zero(Rng& r, int elo, int ehi) {
  const uint64_t z = r.next();
  return z % 13 == 0 ? bf16{uint16_t((z >> 63) << 15)} : spread_bits(uint32_t(z >> 8), elo, ehi);
}
// A row of n such values, two a draw: what fills 16,384 x 16,384 weights in a fraction of a second.
inline void spread_row(Rng& r, bf16* row, int64_t n, int elo, int ehi) {
  int64_t j = 0;
  for (; j + 2 <= n; j += 2) {
    const uint64_t z = r.next();
    row[j] = spread_bits(uint32_t(z), elo, ehi);
    row[j + 1] = spread_bits(uint32_t(z >> 32), elo, ehi);
  }
  if (j < n) row[j] = spread_bf16(r, elo, ehi);
}

// Rows a thread takes at least, for rows of `width` elements: a thread started for less work than
// some 32k elements costs more than it saves (gate 1 prepares hundreds of small cases).
inline int64_t grain_for(int64_t width) { return std::max<int64_t>(1, (int64_t(1) << 15) / std::max<int64_t>(1, width)); }

// Rows [0, rows) of `width` elements each, row r a copy of row pat(r) of `pats`, on every core.
template <class T, class Pat> void copy_patterns(const T* pats, T* out, int64_t rows, int64_t width, Pat&& pat) {
  kc::parallel_for(rows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) std::copy_n(pats + pat(r) * width, width, out + r * width);
  }, grain_for(width));
}

// The same with each of the `pats` pattern rows built once by make(p, row): gate 1's fills, whose
// rows repeat a few patterns, cost a copy a row instead of a row of random draws.
template <class T, class Make, class Pat>
void fill_from_patterns(T* out, int64_t rows, int64_t width, int64_t pats, Make&& make, Pat&& pat) {
  std::vector<T> p(size_t(pats * width));
  kc::parallel_for(pats, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) make(i, p.data() + i * width);
  }, grain_for(width));
  copy_patterns(p.data(), out, rows, width, pat);
}

inline double bf(bf16 v) { return double(from_bf16(v)); }
inline bf16 bf_exact(double v) { return to_bf16(v, Round::nearest); }

// Gate 1's fills draw their rows from this many random patterns (a row r from pattern r % it), then
// plant in a last row, which is then unlike any other: every output is still computed and checked
// by the kernel, while the reference evaluates each distinct pair of rows once (row_classes), so
// gate 1's plants at 8192 x 16384 x 16384 cost no full float64 GEMM each.
inline constexpr int64_t kPlantPatterns = 8;

// Rows grouped by their bytes: rep[r] is the class of row r, first[c] the first row of class c. A
// row's bytes are its slice of every part (part i holds rows of parts[i].bytes bytes each). Classes
// come from a hash of each row, then every row is compared byte for byte with its class's first
// row; should two different rows share a hash, every row is put in a class of its own.
struct RowPart {
  const void* data;
  size_t bytes;
};
struct RowClasses {
  std::vector<int64_t> rep, first;
};
inline RowClasses row_classes(const std::vector<RowPart>& parts, int64_t rows) {
  std::vector<uint64_t> h(static_cast<size_t>(rows));
  kc::parallel_for(rows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      uint64_t x = 0x9e3779b97f4a7c15ull;
      for (const auto& p : parts) {
        const unsigned char* d = static_cast<const unsigned char*>(p.data) + size_t(r) * p.bytes;
        size_t i = 0;
        for (; i + 8 <= p.bytes; i += 8) {
          uint64_t v;
          std::memcpy(&v, d + i, 8);
          x = ((x << 29 | x >> 35) ^ v) * 0x100000001b3ull;
        }
        uint64_t t = 0;
        std::memcpy(&t, d + i, p.bytes - i);
        x = ((x << 29 | x >> 35) ^ t ^ p.bytes) * 0x100000001b3ull;
      }
      h[r] = x ^ (x >> 31);
    }
  }, 64);
  RowClasses c;
  c.rep.resize(size_t(rows));
  std::unordered_map<uint64_t, int64_t> seen;
  for (int64_t r = 0; r < rows; ++r) {
    auto [it, fresh] = seen.try_emplace(h[r], int64_t(c.first.size()));
    if (fresh) c.first.push_back(r);
    c.rep[r] = it->second;
  }
  std::atomic<bool> same{true};
  kc::parallel_for(rows, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e && same.load(std::memory_order_relaxed); ++r) {
      int64_t f = c.first[c.rep[r]];
      if (f == r) continue;
      for (const auto& p : parts) {
        const unsigned char* d = static_cast<const unsigned char*>(p.data);
        if (std::memcmp(d + size_t(r) * p.bytes, d + size_t(f) * p.bytes, p.bytes) != 0) same = false;
      }
    }
  }, 64);
  if (!same) {
    c.first.resize(size_t(rows));
    for (int64_t r = 0; r < rows; ++r) c.rep[r] = c.first[r] = r;
  }
  return c;
}

// Whether evaluating distinct row pairs only pays: at most half the outputs.
inline bool few_classes(const RowClasses& a, const RowClasses& b) {
  return 2 * a.first.size() * b.first.size() <= a.rep.size() * b.rep.size();
}

// The first row of each class, gathered: [classes x width] elements.
template <class T>
std::vector<T> gather_rows(std::span<const T> v, int64_t width, const RowClasses& c) {
  std::vector<T> out(c.first.size() * size_t(width));
  for (size_t i = 0; i < c.first.size(); ++i)
    std::copy(&v[c.first[i] * width], &v[c.first[i] * width] + width, out.begin() + int64_t(i) * width);
  return out;
}

// Outputs [rows x cols] from those of the class pairs [a classes x b classes].
inline void scatter_classes(const std::vector<double>& small, const RowClasses& a, const RowClasses& b,
                            std::vector<double>& out) {
  const int64_t rows = int64_t(a.rep.size()), cols = int64_t(b.rep.size()), nb = int64_t(b.first.size());
  out.resize(size_t(rows * cols));
  kc::parallel_for(rows, [&](int64_t lo, int64_t hi) {
    for (int64_t m = lo; m < hi; ++m) {
      const double* src = &small[a.rep[m] * nb];
      for (int64_t n = 0; n < cols; ++n) out[m * cols + n] = src[b.rep[n]];
    }
  }, 16);
}

// Gate 1's answers by row class (RefResident): output [m, n] is the class pair's. Its classes are
// checked through the pairs, on every core; the rest expands them (a reference's fallback).
class ClassAnswers final : public RefResident {
 public:
  ClassAnswers(std::vector<double> y, std::vector<double> mag, RowClasses a, RowClasses b)
      : y_(std::move(y)), mag_(std::move(mag)), a_(std::move(a)), b_(std::move(b)) {}
  uint64_t count() const override { return uint64_t(a_.rep.size() * b_.rep.size()); }
  std::string at(uint64_t i, double& want, double& mag) const override {
    const size_t k = pair(i);
    want = y_[k], mag = mag_.empty() ? 0 : mag_[k];
    return {};
  }
  std::string fetch(double* want, double* mag) const override {
    std::vector<double> w, m;
    scatter_classes(y_, a_, b_, w);
    std::copy(w.begin(), w.end(), want);
    if (!mag_.empty()) scatter_classes(mag_, a_, b_, m);
    else m.assign(w.size(), 0.0);
    std::copy(m.begin(), m.end(), mag);
    return {};
  }
  std::string check(const void*, DType, const RefBound&, RefChecked&) const override {
    return "answers by row class are checked expanded";
  }
  std::string classes(const void* got, DType t, uint64_t& differ, uint64_t& first) const override {
    const int64_t rows = int64_t(a_.rep.size()), cols = int64_t(b_.rep.size()), nb = int64_t(b_.first.size());
    std::vector<FClass> want(y_.size());
    for (size_t k = 0; k < y_.size(); ++k) want[k] = fclass(y_[k]);
    std::mutex mu;
    differ = 0, first = uint64_t(rows * cols);
    kc::parallel_for(rows, [&](int64_t lo, int64_t hi) {
      uint64_t n = 0, f = uint64_t(rows * cols);
      for (int64_t m = lo; m < hi; ++m) {
        const FClass* row = &want[size_t(a_.rep[m] * nb)];
        for (int64_t c = 0; c < cols; ++c) {
          const uint64_t i = uint64_t(m * cols + c);
          if (row[b_.rep[c]] != fclass(load_as_double(got, t, i)) && !n++) f = i;
        }
      }
      std::lock_guard<std::mutex> l(mu);
      differ += n;
      first = std::min(first, f);
    }, 16);
    return {};
  }

 private:
  size_t pair(uint64_t i) const {
    const uint64_t cols = b_.rep.size();
    return size_t(a_.rep[i / cols] * int64_t(b_.first.size()) + b_.rep[i % cols]);
  }
  std::vector<double> y_, mag_;
  RowClasses a_, b_;
};

// The want and magnitude vectors of a dense or affine reference. Gate 1 compares classes alone, so
// its fills (non-finite plants) leave the magnitudes out: at the largest shapes that is a gigabyte of
// doubles no gate reads, built and expanded for every plant. Every other fill gets both. Inside a
// ResidentScope (kc/ref_device.hpp) gate 1's class pairs are kept as they are (ClassAnswers) under
// the output's host bytes `out`, and want stays empty.
class ExpectedFill {
 public:
  ExpectedFill(Expected& e, const Fill& f, size_t n, const void* out = nullptr)
      : e_(e), n_(n), classes_only_(f.kind == FillKind::nonfinite), out_(out) {}
  // Where a whole (not row-class) reference writes: the entry's vectors, sized; the magnitudes of a
  // gate-1 fill go to scratch, dropped with this object.
  double* want() {
    e_.want.resize(n_);
    return e_.want.data();
  }
  double* mag() {
    std::vector<double>& m = classes_only_ ? scratch_ : e_.mag;
    m.resize(n_);
    return m.data();
  }
  // Outputs from the class pairs' (scatter_classes).
  void scatter(const std::vector<double>& y, const std::vector<double>& m, const RowClasses& a, const RowClasses& b) {
    if (ResidentScope* scope = classes_only_ && out_ ? ResidentScope::current() : nullptr) {
      scope->keep(out_, std::make_unique<ClassAnswers>(y, std::vector<double>(), a, b));
      return;
    }
    scatter_classes(y, a, b, e_.want);
    if (!classes_only_) scatter_classes(m, a, b, e_.mag);
  }

 private:
  Expected& e_;
  size_t n_;
  bool classes_only_;
  const void* out_;
  std::vector<double> scratch_;
};

// Outputs [rows x cols] from those of the distinct pairs [pr x pc]: out[m, n] = small[m % pr, n % pc].
// Each pattern's output row is built once, then copied to its rows on every core.
inline void expand_patterns(const std::vector<double>& small, int64_t pr, int64_t pc, int64_t rows, int64_t cols,
                            std::vector<double>& out) {
  std::vector<std::vector<double>> full(size_t(pr), std::vector<double>(size_t(cols), 0.0));
  for (int64_t p = 0; p < pr; ++p)
    for (int64_t n = 0, j = 0; n < cols; ++n, j = j + 1 == pc ? 0 : j + 1) full[p][n] = small[p * pc + j];
  out.resize(size_t(rows * cols));
  kc::parallel_for(rows, [&](int64_t b, int64_t e) {
    for (int64_t m = b; m < e; ++m) std::copy(full[m % pr].begin(), full[m % pr].end(), out.begin() + m * cols);
  }, 16);
}

}  // namespace kc::fam
