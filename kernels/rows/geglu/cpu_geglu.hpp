// The CPU GeGLU rows, shared with the control that skips one rounding point.
#pragma once
#include "kc/spec.hpp"

namespace kc::rows_cpu {
// skip_erf_arg_rounding: a planted fault (erf reads g / sqrt 2 in fp32, not rounded to bf16).
void geglu_bf16(const Buffers& b, bool skip_erf_arg_rounding = false);
Entry geglu_entry();
}  // namespace kc::rows_cpu
