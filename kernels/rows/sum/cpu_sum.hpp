// The CPU row sum, callable by what replaces it (rows/sum/f32_threads) and by its controls.
#pragma once
#include "kc/spec.hpp"

namespace kc::rows_cpu {
// y[r] = sum of x[r, :] by tiled_sum, one row after another. drop_ragged_last: a planted fault.
void sum_f32(const Buffers& b, bool drop_ragged_last = false);
// The envelope and accumulation rows/sum/f32 registers.
Entry sum_f32_entry();
}  // namespace kc::rows_cpu
