// Gate 1's plants (see plants.hpp).
#include "kc/families/plants.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "kc/numeric.hpp"

namespace kc::plants {

bool whole_row(Kind k) { return k == Kind::row_ninf || k == Kind::row_pinf || k == Kind::row_nan || k == Kind::row_ninf_one; }

std::vector<Plant> standard(const std::vector<Operand>& operands) {
  std::vector<Plant> p;
  for (const auto& o : operands)
    for (Kind k : {Kind::nan, Kind::pinf, Kind::ninf, Kind::both}) p.push_back({o.name, k, At::last});
  for (auto& x : extras(operands)) p.push_back(std::move(x));
  return p;
}

std::vector<Plant> extras(const std::vector<Operand>& operands) {
  std::vector<Plant> p;
  for (const auto& o : operands) {
    // Positions: a bug that shows only for a leading value (a running max that starts at -Inf and
    // rescales by exp(old - new)) or one inside the first tile.
    for (Kind k : {Kind::nan, Kind::ninf})
      for (At a : {At::first, At::middle}) p.push_back({o.name, k, a});
    p.push_back({o.name, Kind::neg_nan, At::last});
    p.push_back({o.name, Kind::payload_nan, At::last});
    if (o.rows.ninf) p.push_back({o.name, Kind::row_ninf});
    if (o.rows.pinf) p.push_back({o.name, Kind::row_pinf});
    if (o.rows.nan) p.push_back({o.name, Kind::row_nan});
    if (o.rows.ninf_one) p.push_back({o.name, Kind::row_ninf_one});
  }
  return p;
}

static bool basic(const Plant& x) {
  return x.at == At::last && (x.kind == Kind::nan || x.kind == Kind::pinf || x.kind == Kind::ninf || x.kind == Kind::both);
}

int leading_basic(const std::vector<Plant>& p) {
  int n = 0;
  while (n < int(p.size()) && basic(p[size_t(n)])) ++n;
  return n;
}

std::vector<int> at_edges(const std::vector<Plant>& p) {
  std::vector<int> v;
  for (size_t i = 0; i < p.size(); ++i)
    if (basic(p[i]) || whole_row(p[i].kind)) v.push_back(int(i));
  return v;
}

void set(Rig& rig, const std::vector<Plant>& p) {
  rig.plants = names(p);
  rig.plants_at_scale = leading_basic(p);
  rig.plants_at_edges = at_edges(p);
}

std::string name(const Plant& p) {
  const std::string& x = p.operand;
  const char* where = p.at == At::first ? " at the first column" : p.at == At::middle ? " at the middle column" : "";
  switch (p.kind) {
    case Kind::nan: return "NaN in " + x + where;
    case Kind::pinf: return "+Inf in " + x + where;
    case Kind::ninf: return "-Inf in " + x + where;
    case Kind::both: return "+Inf and -Inf in " + x;
    case Kind::neg_nan: return "negative NaN in " + x;
    case Kind::payload_nan: return "NaN with a payload in " + x;
    case Kind::row_ninf: return "a row of -Inf in " + x;
    case Kind::row_pinf: return "a row of +Inf in " + x;
    case Kind::row_nan: return "a row of NaN in " + x;
    case Kind::row_ninf_one: return "a row of -Inf but one finite value in " + x;
    case Kind::pinf_at_zero: return "+Inf in " + x + " against a 0 in " + p.partner;
  }
  return "?";
}

std::vector<std::string> names(const std::vector<Plant>& p) {
  std::vector<std::string> out;
  for (const auto& x : p) out.push_back(name(x));
  return out;
}

const Plant& at(const std::vector<Plant>& p, int plant, const char* family) {
  if (plant < 0 || plant >= int(p.size()))
    throw Error(fmt::format("{} family: plant {} is not one of the {} plants", family, plant, p.size()));
  return p[size_t(plant)];
}

int64_t column(const Plant& p, const Fill& f, int64_t cols) {
  if (f.pos >= 0) return f.pos % cols;
  return p.at == At::first ? 0 : p.at == At::middle ? cols / 2 : cols - 1;
}

uint64_t nan_bits(DType t, bool negative, bool payload) {
  switch (t) {
    case DType::f64: return (negative ? 1ull << 63 : 0) | 0x7ff8000000000000ull | (payload ? 0x5a5a5a5a5ull : 0);
    case DType::f32: return (negative ? 1ull << 31 : 0) | 0x7fc00000u | (payload ? 0x15a5a5u : 0);
    case DType::f16: return (negative ? 1u << 15 : 0) | 0x7e00u | (payload ? 0x155u : 0);
    case DType::bf16: return (negative ? 1u << 15 : 0) | 0x7fc0u | (payload ? 0x15u : 0);
    default: throw Error(fmt::format("plants: {} has no NaN", dtype_name(t)));
  }
}

namespace {
void put_bits(void* data, DType t, size_t i, uint64_t bits) {
  const size_t es = dtype_size(t);
  std::memcpy(static_cast<std::byte*>(data) + i * es, &bits, es);  // little-endian: the low bytes
}
}  // namespace

void write(void* data, DType t, size_t base, int64_t cols, Kind k, int64_t col) {
  const double inf = std::numeric_limits<double>::infinity();
  const uint64_t qnan = nan_bits(t, false, false);
  switch (k) {
    case Kind::nan: put_bits(data, t, base + col, qnan); break;
    case Kind::neg_nan: put_bits(data, t, base + col, nan_bits(t, true, false)); break;
    case Kind::payload_nan: put_bits(data, t, base + col, nan_bits(t, false, true)); break;
    case Kind::pinf:
    case Kind::pinf_at_zero: store_from_double(data, t, base + col, inf); break;
    case Kind::ninf: store_from_double(data, t, base + col, -inf); break;
    case Kind::both:
      store_from_double(data, t, base + col, inf);
      // The other infinity half a row away; a one-column row can hold only one.
      if (cols > 1) store_from_double(data, t, base + (col + std::max<int64_t>(1, cols / 2)) % cols, -inf);
      break;
    case Kind::row_ninf:
    case Kind::row_pinf:
    case Kind::row_ninf_one:
      for (int64_t j = 0; j < cols; ++j)
        if (k != Kind::row_ninf_one || j != col) store_from_double(data, t, base + j, k == Kind::row_pinf ? inf : -inf);
      break;
    case Kind::row_nan:
      for (int64_t j = 0; j < cols; ++j) put_bits(data, t, base + j, qnan);
      break;
  }
}

}  // namespace kc::plants
