// The attention range (attention.hpp, gate 3): how far an fp32 online-softmax kernel's steps may move
// each key's weight, and the ends of out, lse and the partials over that spread. Internal to core;
// tests/attention builds hand-made rows on it.
#pragma once
#include <cstdint>
#include <vector>

#include "kc/families/attention.hpp"
#include "kc/numeric.hpp"
#include "kc/rig.hpp"

namespace kc::attention::detail {

// What the kernel's fp32 steps allow, from its spec (depth, ops, ulps) and its Steps.
struct Allow {
  double g_dot = 0;    // gamma(dot depth): a score's error over its |q . k| (times scale)
  double g_sum = 0;    // gamma(key-sum depth): l's and each P.V component's sum
  double e_exp = 0;    // exp's relative error (its ulps at 2u each)
  double e_log = 0;    // log's
  int score_ops = 1;   // roundings of a score after its dot
  double p_round = 0;  // P's relative move where P.V reads it rounded (bf16: 2^-8) or cut (tf32: 2^-10)
  int64_t tile = 1;    // keys a tile: the max moves, and the sums rescale, at most once a tile
  int ops = 1;         // fp32 operations after the sums (out = o / l)
  LseBase base = LseBase::e;
  bool merged = false;  // Steps::merged: chunks' partials merged (rescales by tiles, one more exp)
};
// The case's Allow: the spec's depth (gamma dropped at gate 4, whose sums are exact), ops, tile of
// `tiled_dim` and ulps, and the steps' dot depth (d where unstated), score ops and P.
Allow allow_of(const Case& c, const Steps& st, const char* tiled_dim);

// Each term's weight exp(s_j - M) (M = max s) and the ends the kernel's may reach. A term is a key
// (s: its exact score, delta: how far the kernel's score may sit from it) or a merge's chunk (s: m_c
// or lse_c exactly, delta 0). Terms run in the kernel's order; a -Inf score has weight 0.
struct Spread {
  double M = 0, dmax = 0;
  std::vector<double> w, lo, hi;
};
// own_max: weights relative to the kernel's own max (a partial's l and o), which may sit dmax from M.
Spread spread(const std::vector<double>& s, const std::vector<double>& delta, const Allow& al, bool own_max);
// A score's error: scale * g_dot * |q . k| and score_ops roundings of it.
double score_delta(double s, double abs_dot, double scale, const Allow& al);

// The ends of sum_j w_j a_j / sum_j w_j b_j over every weight in the spread, a_j read as P.V reads
// it (moved by p_round), both sums within g_sum; b null: every b_j = 1. a(j) = rows[j][t].
Interval ratio_range(const Spread& sp, const std::vector<const double*>& rows, int64_t t, const double* b,
                     const Allow& al);
// The ends of sum_j w_j a_j (an unnormalized partial o) and of sum_j w_j b_j (its l, b null: 1s).
Interval sum_range(const Spread& sp, const std::vector<const double*>& rows, int64_t t, const Allow& al);
Interval weight_sum_range(const Spread& sp, const double* b, const Allow& al);
// lse = M + log sum_j w_j b_j in al.base's units, with log's error and the final add's rounding.
Interval lse_range(const Spread& sp, const double* b, const Allow& al);
// A max over scores each within delta of s (a partial's m).
Interval max_range(const std::vector<double>& s, const std::vector<double>& delta);
// The fp32 steps after the sums (al.ops roundings), then fp32's and the output type's rounding.
Interval finish(const Interval& v, int ops, DType out);

}  // namespace kc::attention::detail
