// Basic vocabulary of the contract: element types, buffer roles, shapes, gates.
// No vendor header may ever be included from core/.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kc {

// Storage types for 16-bit floats: plain bits, so core builds anywhere. A CUDA rig reinterprets
// them as __nv_bfloat16 / __half (same size and layout).
struct bf16 { uint16_t bits; };
struct f16 { uint16_t bits; };

enum class DType : uint8_t { f64, f32, f16, bf16, i64, i32, u32, u16, u8, i8 };

size_t dtype_size(DType t);
const char* dtype_name(DType t);
bool dtype_is_float(DType t);

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<double>() { return DType::f64; }
template <> constexpr DType dtype_of<float>() { return DType::f32; }
template <> constexpr DType dtype_of<f16>() { return DType::f16; }
template <> constexpr DType dtype_of<bf16>() { return DType::bf16; }
template <> constexpr DType dtype_of<int64_t>() { return DType::i64; }
template <> constexpr DType dtype_of<int32_t>() { return DType::i32; }
template <> constexpr DType dtype_of<uint32_t>() { return DType::u32; }
template <> constexpr DType dtype_of<uint16_t>() { return DType::u16; }
template <> constexpr DType dtype_of<uint8_t>() { return DType::u8; }
template <> constexpr DType dtype_of<int8_t>() { return DType::i8; }

// A kernel that writes over an input declares an output and an input sharing memory
// (Entry::in_place): the case keeps the input as it was for the reference, and the output apart.
enum class Role : uint8_t { in, out };
const char* role_name(Role r);

// The gates, numbered as in DESIGN.md §2.4; 6, invariance, is the check of a spec's stated
// invariance (Entry::invariant): a row's bytes whatever else shares its batch.
// 7, far, the check of a spec's far shape (Entry::far): offsets past 2^31 elements or bytes.
enum class Gate : uint8_t { nonfinite = 1, repeat = 2, shapes = 3, sums = 4, limits = 5, invariance = 6, far = 7 };
const char* gate_name(Gate g);  // "nonfinite", "repeat", "shapes", "sums", "limits", "invariance", "far"

// Every user-facing error of the contract (bad spec, bad shape, bad option, bad file) is this type:
// its text names the thing that is wrong.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A named shape: an ordered list of dimensions, e.g. rows:7/cols:4096.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::pair<std::string, int64_t>> dims);
  int64_t operator[](std::string_view dim) const;  // throws Error naming the dimension
  bool has(std::string_view dim) const;
  void set(std::string_view dim, int64_t value);
  const std::vector<std::pair<std::string, int64_t>>& dims() const { return dims_; }
  int64_t elements() const;  // product of all dims
  std::string str() const;   // "rows:7/cols:4096"
  bool operator==(const Shape& o) const = default;

 private:
  std::vector<std::pair<std::string, int64_t>> dims_;
};

}  // namespace kc
