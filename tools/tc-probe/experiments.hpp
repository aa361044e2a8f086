// The probe's experiments for one instruction, made from a seed so the GPU test and the probe run
// the same ones. Families (Exp::family):
//   exact       one product alone: is it exact?
//   window      2^E beside +-2^(E-j)(1.f) at some k: how many bits below the largest survive, cut how
//   window_cbig the same with the large value in C: is C aligned with the products?
//   window_csml a large product beside C = +-2^(E-j)(1.f)
//   cancel_c    C small beside p and -p: is C an addend of the aligned group (then it is cut)?
//   blocks      2^E at i, -2^E at j, a small product at k: which k share a step with i and j
//   narrow, wide  random products and C over 7 and ~45 binades: every rule parameter at once
//   cut         (tf32) one full fp32 operand times 1: what of its 23 fraction bits is kept
//   special:*   NaN, Inf, subnormal and overflow cases, reported as seen (not fitted)
#pragma once
#include <cstdint>
#include <vector>

#include "device.hpp"

namespace kc::tcprobe {

std::vector<Exp> experiments(const InstrInfo& in, uint64_t seed = 1);

// The exact value of the experiment's c + sum a_k b_k (float64; exact for the "exact" family).
double exact_product_sum(const InstrInfo& in, const Exp& e);

}  // namespace kc::tcprobe
