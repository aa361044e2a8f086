// The rows input family (DESIGN.md §2.3): per-row reductions and maps over a [rows x cols] input.
// Each function returns an Entry whose rig already builds inputs for every gate's fill, computes
// the float64 reference and magnitudes, and replays the sums in fp16/bf16 for gate 4. A kernel's
// contract adds its envelope, accumulation and launch. Dims are always "rows" and "cols"; buffers
// are row-major, named as below. `in` is the element type of x (and w, b, g, u, r); `out` of y.
//
// What the family does for each gate (families/rows/src/rows_*.cpp; the page: families/rows/README.md):
// - Gate 1: rig.plants is, for every operand X the formula reads (x and w; g and u; x, r and w; x, w, b),
//   "NaN in X", "+Inf in X", "-Inf in X", "+Inf and -Inf in X" first (their indices keep their
//   meaning), then NaN and -Inf at the first and the middle column, a negative NaN and a NaN with a
//   payload (bits in X's type), and the whole rows the formula gives a meaning to (each function's
//   comment says which: a masked row of -Inf, rows of +Inf and of NaN, a row of -Inf but one finite
//   value). A plant goes into the middle row (rows / 2) of a [rows x cols] operand, or into a [cols]
//   operand (then every row reads it), at column Fill::pos (taken modulo cols; -1: the plant's own
//   column, the last unless named). The second infinity sits half a row away. Every other value is
//   finite. Gate 1 compares classes alone, so its references skip magnitudes' intervals.
// - Gates 2 and 3: values +-(1..2) * 2^e with e spread over several binades and random signs, so a
//   reordered fp32 sum changes bytes; and the named fills of rig.fills (Fill::dist, see
//   kc/families/fills.hpp: offset, range, ties, zeros, sign, tiny, subnormal) each function
//   lists where its formula can be hurt by them. argmax / topk copy each row's maximum to a second column.
// - Gate 4: integers, exact in `in`. sum and dot: the first half of a row large and positive, the
//   second half its negatives in reverse order (shuffled where that leaves a replay exact); the row sums to exactly 1 and one term is at least
//   2^16 where the type can hold it, so fp16 overflows in every order; rows are redrawn until every
//   fp16 and bf16 replay misses by at least 1 (100x any output type's bound on 1). Sums of squares
//   (rms_norm, add_rms_norm's h): between 2^20 and 2^23, one square of at least 2^16. softmax:
//   terms of 1 (x at the row's maximum) where each replay's chains start, the rest one small e^d
//   that every fp16 and bf16 replay drops while fp32 keeps it (its sums cannot be exact:
//   Expected::exact_sums is false, and gate 4 keeps gamma(depth) in the bound).
//   A 16-bit output of a norm moves by half its sum of squares' relative error, which a bf16 sum in
//   32 lanes cannot make 100x its rounding: such specs must say .hidden(why); so must a softmax with
//   a 16-bit output. layer_norm: half a row of squares' integers (over cols / 2), the other half
//   their negatives, shuffled (a 0 at odd cols): the mean is exactly 0, x - mean exact and the
//   squares' sum at most 2^24; a row is redrawn until every replay of its squares misses rstd's
//   bound by 100x (rstd is an fp32 output, so a 16-bit y needs no .hidden).
// - Magnitudes: sum |terms| for sum and dot; |y| / 2 for rms_norm (dy/y = -dS/2S); y for softmax;
//   none for layer_norm (its outputs are intervals).
// - Rounding points (geglu, swiglu, add_rms_norm): Expected::lo/hi carry an interval through each
//   fp32 step (one rounding, or the spec's .ulp("erff"/"expf", n): 2 ulps when it declares none; a
//   constant such as M_SQRT1_2 may be held in fp32) and each bf16 rounding. add_rms_norm's y also
//   takes the spec's depth (gamma, dropped at gate 4 where the sums are exact), ops and ulps.
//   layer_norm is a formula (kc/formula.hpp): its outputs are intervals, the variance's from
//   f.centred_squares around the kernel's mean (sum (x - mean)^2 = sum (x - mu)^2 + n (mu - mean)^2:
//   never by squaring per-element intervals, whose dependency would let a one-pass E[x^2] - E[x]^2
//   pass the offset fill) or f.welford's chain; each fp32 step after the sums counted by the formula.
#pragma once
#include <optional>

#include "kc/spec.hpp"

namespace kc::rows {

// y[r] = sum_c x[r,c].                                        buffers: x in, y out [rows]
Entry sum(DType in, DType out);
// y[r] = sum_c x[r,c] * w[c].                                 buffers: x, w [cols] in, y out [rows]
Entry dot(DType in, DType out);
// y[r] = max_c x[r,c] (a NaN anywhere in the row gives NaN).  buffers: x in, y out [rows]
Entry max(DType in, DType out);
// y[r,c] = x[r,c] / sqrt(mean_c x^2 + eps) * w[c].             buffers: x, w [cols] in, y out
Entry rms_norm(DType in, DType out, double eps = 1e-6);
// y[r,c] = (x[r,c] - mean) * rstd * w[c] + b[c], rstd = 1 / sqrt(mean_c (x - mean)^2 + eps).
//                        buffers: x, w, b [cols] in, y out, mean and rstd out (f32 [rows], per row)
// A formula (kc/formula.hpp): the spec must declare its sums (.sums).
Entry layer_norm(DType in, DType out, double eps = 1e-5);
// The same with the kernel's form: its variance by two passes, or by Welford's update in one fp32
// chain over the row in column order (d = x - M; M += d / j; m2 += d (x - M); var = m2 / cols), each
// with its proven interval (families/rows/README.md); mean and rstd written or not; w and b in
// their own type (the input's where unset). Welford's stated gate 1 rule: where float64's mean is
// infinite (a row holding an infinity), a NaN mean holds too (the update meets inf - inf).
struct LayerNormForm {
  enum class Variance : uint8_t { two_pass, welford } variance = Variance::two_pass;
  bool stats = true;
  std::optional<DType> weights;
};
Entry layer_norm(DType in, DType out, double eps, const LayerNormForm& form);
// y[r,c] = exp(x[r,c] - max) / sum_c exp(x[r,c] - max).        buffers: x in, y out
// A formula (kc/formula.hpp): its reference, magnitudes, bound and replays derived from the
// arithmetic written once; the spec must declare its sums (.sums).
Entry softmax(DType in, DType out);
// id[r] = lowest c with x[r,c] == max of the row; -1 for a row holding a NaN (stated rule).
//                                                             buffers: x in, id out (i32 [rows])
Entry argmax(DType in);
// The k largest of each row, descending: ids (i32) and vals (in's type) [rows x k]. Stated rule:
// a NaN ranks above +inf, ties go to the lower id, the order is deterministic.
Entry topk(DType in, int k);

// MLX's op-by-op activation rows, every op rounded to bf16 (checked at those rounding points):
// GeGLU: y = bf16(bf16(gelu(g)) * u), gelu(g) = bf16(bf16(0.5 * g) * bf16(1 + bf16(erf(bf16(g * M_SQRT1_2)))))
// SwiGLU: y = bf16(bf16(silu(g)) * u), silu(g) = bf16(g * bf16(sigmoid(g))), sigmoid(g) = bf16(1 / bf16(1 + bf16(exp(-g))))
//                                                             buffers: g, u in (bf16), y out (bf16)
Entry geglu();
Entry swiglu();

// Residual add then RMS norm, all bf16 (x, r, w, h, y): h = bf16(x + r) is written (and checked), and
//   rounded:      y = bf16(h / sqrt(mean h^2 + eps) * w)   (the norm reads the bf16 residual)
//   once-rounded: y = bf16(s / sqrt(mean s^2 + eps) * w) with s = x + r in fp32 (one rounding)
//                                                             buffers: x, r, w in, h out, y out
enum class Residual { rounded, once_rounded };
Entry add_rms_norm(Residual form, double eps = 1e-6);

}  // namespace kc::rows
