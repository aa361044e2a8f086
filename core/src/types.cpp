#include "kc/types.hpp"

#include <fmt/format.h>

namespace kc {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: return 8;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f16: case DType::bf16: case DType::u16: return 2;
    case DType::u8: case DType::i8: return 1;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::u32: return "u32";
    case DType::u16: return "u16";
    case DType::u8: return "u8";
    case DType::i8: return "i8";
  }
  return "?";
}

bool dtype_is_float(DType t) {
  return t == DType::f64 || t == DType::f32 || t == DType::f16 || t == DType::bf16;
}

const char* role_name(Role r) {
  switch (r) {
    case Role::in: return "in";
    case Role::out: return "out";
  }
  return "?";
}

const char* gate_name(Gate g) {
  switch (g) {
    case Gate::nonfinite: return "nonfinite";
    case Gate::repeat: return "repeat";
    case Gate::shapes: return "shapes";
    case Gate::sums: return "sums";
    case Gate::limits: return "limits";
    case Gate::invariance: return "invariance";
    case Gate::far: return "far";
  }
  return "?";
}

Shape::Shape(std::initializer_list<std::pair<std::string, int64_t>> dims) : dims_(dims) {}

int64_t Shape::operator[](std::string_view dim) const {
  for (const auto& [n, v] : dims_)
    if (n == dim) return v;
  throw Error(fmt::format("shape {} has no dimension '{}'", str(), dim));
}

bool Shape::has(std::string_view dim) const {
  for (const auto& d : dims_)
    if (d.first == dim) return true;
  return false;
}

void Shape::set(std::string_view dim, int64_t value) {
  for (auto& d : dims_)
    if (d.first == dim) {
      d.second = value;
      return;
    }
  dims_.emplace_back(std::string(dim), value);
}

int64_t Shape::elements() const {
  int64_t n = 1;
  for (const auto& d : dims_) n *= d.second;
  return n;
}

std::string Shape::str() const {
  std::string s;
  for (const auto& [n, v] : dims_) {
    if (!s.empty()) s += '/';
    s += fmt::format("{}:{}", n, v);
  }
  return s.empty() ? "()" : s;
}

}  // namespace kc
