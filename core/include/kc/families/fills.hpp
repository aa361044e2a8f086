// Named value distributions for gates 2 and 3, beside each family's spread fill (""):
// shared by the rows, dense and affine families and open to a custom rig. Fill::dist names one; a family
// lists in Rig::fills those its formula can be hurt by and draws its operands' rows from row().
//   offset    1000 + s u, u in [-1, 1], s = max(0.01, 4 ulps of the type at 1000): cancellation
//   range     magnitudes from 2^lo to 2^hi in one row (the family's exponents, which keep its sums
//             and outputs finite), the least and the largest always present
//   ties      a few values repeated, the row's largest at two columns or more, -0 beside +0 (odd rows
//             are negative, so their maximum is the zero: -0 at the lower column)
//   zeros     spread values with about one in four a zero, -0 and +0 both present
//   sign      spread values, even rows all negative, odd rows all positive (one row: negative)
//   tiny      spread values of magnitude 2^-12 .. 2^-9 (an epsilon near 1e-6 is not negligible)
//   subnormal subnormal values of the type, both signs
//   cut       one sign a row (even rows positive): 1 at column 0, every other value (1.5 .. 2) 2^-13;
//             a dot of two such rows adds one product 1 and products near 2^-25 of its sign, the
//             bits a tensor core's k-step cuts below its largest addend (docs/tensor-cores.md)
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kc/types.hpp"

namespace kc::fills {

inline constexpr const char* kOffset = "offset";
inline constexpr const char* kRange = "range";
inline constexpr const char* kTies = "ties";
inline constexpr const char* kZeros = "zeros";
inline constexpr const char* kSign = "sign";
inline constexpr const char* kTiny = "tiny";
inline constexpr const char* kSubnormal = "subnormal";
inline constexpr const char* kCut = "cut";
bool known(std::string_view dist);

struct Range {
  int lo = -20, hi = 20;  // the range fill's exponents, clamped to the type's normal range
};

// The exponent of the type's top binade (127 for f32 and bf16, 15 for f16).
int max_exponent(DType t);

// Row r of a distribution: out.size() values, each exact in t (f32, f16, bf16). seed: the case's
// seed mixed with the operand's name; rows are independent of each other.
void row(std::string_view dist, DType t, uint64_t seed, int64_t r, std::span<double> out, const Range& range = {});
// A seed for an operand's rows: the case seed mixed with the operand's name and the distribution.
uint64_t seed_for(uint64_t case_seed, std::string_view operand, std::string_view dist);

// Checks (throws Error) that every name in `dists` is a known distribution.
void check(const std::vector<std::string>& dists);

}  // namespace kc::fills
