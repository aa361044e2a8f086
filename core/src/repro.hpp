// --repro: the smallest input behind a finding (shrinking the shape, then the planted position),
// printed with its values, want and got. Internal to core.
#pragma once
#include <string>
#include <vector>

#include "gates/gates.hpp"

namespace kc::detail {
std::vector<std::string> repro(GateCtx& ctx, Gate g, const Outcome& found);
}
