// Gates 2 and 3's named fills (Rig::fills): each run beside the spread fill at a few small
// shapes. Internal to core.
#pragma once
#include <functional>
#include <vector>

#include "gates.hpp"

namespace kc::detail {

// The shapes each named fill runs at: the smallest served shape and the smallest with every tiled
// dim ragged (tile + step where valid, else the least ragged size), the other dims at their least
// served size.
std::vector<Shape> fill_shapes(const Spec& spec);

// Runs check at every named fill and fill shape. Returns the first failure, its shape and detail
// naming the fill ("fill=offset"); where all pass, adds their count to pass.detail, keeps the
// worst of their margins in pass.margin (gate 3) and returns an Outcome that passed.
Outcome named_fills(GateCtx& ctx, const std::function<Outcome(GateCtx&, const Shape&, const Fill&)>& check,
                    Outcome& pass);

}  // namespace kc::detail
