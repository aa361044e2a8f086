// What the block-scaled family's files share (internal to core): a case's layout (buffer sizes and
// which scale an element takes), and gate 1's plant list.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kc/families/blockscaled.hpp"
#include "kc/families/plants.hpp"
#include "kc/lowp.hpp"

namespace kc::blockscaled::detail {

struct Layout {
  Weights w;
  Acts a;
  DType out;
  int64_t m = 0, n = 0, k = 0;
  int64_t qrow = 0;       // bytes a q row holds: k, or k / 2 for FP4
  int64_t s_cols = 0;     // weight scales a row of s (block128: a row of n blocks)
  int64_t s_count = 0;
  int64_t sx_cols = 0, sx_count = 0;  // 0 for bf16 activations
  int64_t interval = 0;   // the entry's tensor-core interval of K (projection), for gate 4's rows
  // The weight scale element (n, j) takes, and the activation scale of (m, j).
  int64_t s_at(int64_t row, int64_t j) const;
  int64_t sx_at(int64_t row, int64_t j) const;
  lowp::Format s_format() const;  // of a u8 scale (mxfp4, nvfp4)
  bool s_is_f32() const { return !is_fp4(w); }
};
Layout layout(Weights w, Acts a, DType out, const Shape& s);  // throws Error naming a bad shape

// Gate 1's plants. Kind::nan in a code operand (xq, q, or a u8 scale) is its format's positive NaN
// code; Kind::neg_nan in an e4m3 operand is 0xFF.
struct BsPlant {
  plants::Plant p;
  std::string label;
};
std::vector<BsPlant> plant_list(Weights w, Acts a);
bool is_code_operand(Weights w, const std::string& operand);

// The random and gate-1 fills; gate 4's (sums_fill) in blockscaled_sums.cpp.
void fill(Case& c, const Layout& L);
void sums_fill(Case& c, const Layout& L);

}  // namespace kc::blockscaled::detail
