// The embedding gather (families/embedding/README.md): y[t, :] = table[ids[t], :], a bf16 or fp32
// table [vocab, hidden], i32 ids [tokens], y in the table's type. Rows are copied bit-exact: each
// output is pinned to its row's stored value (an interval of one point), so a kernel that converts,
// rounds or reads a neighbour fails at once. Stated rule for a bad id (< 0 or >= vocab): its row of y
// is zeros; the fills draw ids past the end, negative, repeated and the table's last row.
#pragma once
#include <kc/formula.hpp>

namespace kc::embedding {

inline Entry gather(DType table) {
  using namespace kc::formula;
  return Formula()
      .in("table", table, {"vocab", "hidden"}, {.lo = -20, .hi = 20, .fills = false})
      .ids("ids", {"tokens"}, "table", BadId::zero)
      .out("y", table, {"tokens", "hidden"})
      .each({"tokens"}, [table](auto& f) {
        auto row = f.row("table", f.id("ids"));
        auto y = f.out("y");
        for (int64_t c = 0; c < row.size(); ++c) y[c] = f.round(row[c], table);  // stored as is
      })
      .entry();
}

// The rule's text, for a kernel's .note or error messages.
inline constexpr const char* kBadIdRule = "an id < 0 or >= vocab gives a row of zeros";

}  // namespace kc::embedding
