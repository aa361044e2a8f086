// Runs a rows family entry's hooks on a host Case, the way the gates do, without a backend.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "kc/families/rows.hpp"
#include "kc/numeric.hpp"

namespace rows_test {

inline kc::Shape shape(int64_t rows, int64_t cols) { return kc::Shape{{"rows", rows}, {"cols", cols}}; }
// Gates 2 and 3's named distribution d (fills.hpp) as a case's fill.
inline kc::Fill dist(const char* d) {
  kc::Fill f;
  f.dist = d;
  return f;
}

// An entry with an envelope and fp32 sums (depth: a chain over cols), as a kernel would register it.
inline kc::Entry with_sums(kc::Entry&& e, int ops = 0) {
  return std::move(e)
      .served({{"rows", {1, 3}}, {"cols", {64, 1024}}})
      .tile("cols", 256, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"]) + 1; }, ops);
}

inline kc::Case prepared(const kc::Entry& e, const kc::Shape& s, kc::Fill f, uint64_t seed = 42) {
  kc::Case c(s, f, seed);
  c.spec = &e.spec;
  e.rig.prepare(c);
  return c;
}

inline std::vector<double> values(const kc::Case& c, const std::string& name) {
  const kc::HostBuffer& b = c.buffer(name);
  std::vector<double> v(b.decl.count);
  for (size_t i = 0; i < v.size(); ++i) v[i] = kc::load_as_double(b.bytes.data(), b.decl.type, i);
  return v;
}

inline void set(kc::Case& c, const std::string& name, size_t i, double v) {
  kc::HostBuffer& b = const_cast<kc::HostBuffer&>(c.buffer(name));
  kc::store_from_double(b.bytes.data(), b.decl.type, i, v);
}

inline bool all_finite(const std::vector<double>& v, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

}  // namespace rows_test
