// Gate 1's plants, shared by the rows, dense and affine families and open to a custom rig. A plant names
// an operand, a kind (one value, two infinities, a NaN of another sign or payload, a whole row) and
// the column a single value goes to when Fill::pos is unset. Today's four plants (NaN, +Inf, -Inf,
// both infinities at the last column) come first for every operand, so their indices keep their
// meaning; the rest follow (leading and middle plants, NaN bits, masked rows).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kc/rig.hpp"
#include "kc/types.hpp"

namespace kc::plants {

enum class Kind : uint8_t {
  nan, pinf, ninf, both,  // one value (both: +Inf at the column, -Inf half a row away)
  neg_nan,                // a negative quiet NaN (what 0/0 gives on x86)
  payload_nan,            // a positive quiet NaN whose payload is not the default one
  row_ninf, row_pinf, row_nan,  // every value of the row
  row_ninf_one,           // every value -Inf but the one at the column (a masked row with one kept)
  pinf_at_zero,           // +Inf at the column, where the partner operand (Plant::partner) holds a 0:
                          // 0 * Inf is NaN, which a kernel skipping zero terms never makes
};
enum class At : uint8_t { last, first, middle };

struct Plant {
  std::string operand;
  Kind kind;
  At at = At::last;
  std::string partner;  // pinf_at_zero: the operand the family zeroes at the same column
};
bool whole_row(Kind k);

// The whole-row plants a formula gives a meaning to (a reduction over the row does; an elementwise
// map does not: a row of -Inf is then only many single plants).
struct Rows {
  bool ninf = false, pinf = false, nan = false, ninf_one = false;
};
inline constexpr Rows kNoRows{};
inline constexpr Rows kInfNanRows{true, true, true, false};
// A masked row (-Inf) alone: where +Inf is its mirror and a NaN row means what one NaN means (sums,
// dots, norms), the other whole rows add cases and no meaning.
inline constexpr Rows kMaskRow{true, false, false, false};
inline constexpr Rows kAllRows{true, true, true, true};

struct Operand {
  std::string name;
  Rows rows;
};
// For each operand: the four of today, then NaN and -Inf at the first and middle columns, the
// negative and the payload NaN, then its whole rows.
std::vector<Plant> standard(const std::vector<Operand>& operands);
// standard() without today's four: for a family whose first plants are its own.
std::vector<Plant> extras(const std::vector<Operand>& operands);
std::vector<std::string> names(const std::vector<Plant>& p);
// How many plants lead p that are today's four at their default column (Rig::plants_at_scale).
int leading_basic(const std::vector<Plant>& p);
// The indices of p's single values at the last column and its whole rows (Rig::plants_at_edges).
std::vector<int> at_edges(const std::vector<Plant>& p);
// Rig::plants, plants_at_scale and plants_at_edges from one list.
void set(Rig& rig, const std::vector<Plant>& p);
std::string name(const Plant& p);
// The plant Fill::plant names; throws Error (naming `family`) when there is none.
const Plant& at(const std::vector<Plant>& p, int plant, const char* family);

// The column of a single plant (or of the finite value of row_ninf_one) in a row of `cols`:
// Fill::pos when set (taken modulo cols), else the plant's own column.
int64_t column(const Plant& p, const Fill& f, int64_t cols);

// NaN bits in type t (f32, f16, bf16, f64): quiet, of either sign, with the default payload or a
// non-default one.
uint64_t nan_bits(DType t, bool negative, bool payload);
// Writes plant p into elements [base, base + cols) of a buffer of type t, at column col.
void write(void* data, DType t, size_t base, int64_t cols, Kind k, int64_t col);

}  // namespace kc::plants
