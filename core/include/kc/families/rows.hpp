// The rows input family (DESIGN.md §2.3): per-row reductions and maps over a [rows x cols] input.
// Each function returns an Entry whose rig already builds inputs for every gate's fill, computes
// the float64 reference and magnitudes, and replays the sums in fp16/bf16 for gate 4. A kernel's
// contract adds its envelope, accumulation and launch. Dims are always "rows" and "cols"; buffers
// are row-major, named as below. `in` is the element type of x (and w, g, u, r); `out` of y.
#pragma once
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
// y[r,c] = exp(x[r,c] - max) / sum_c exp(x[r,c] - max).        buffers: x in, y out
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

// Residual add then RMS norm, bf16: h = bf16(x + r) is written (and checked), and
//   rounded:      y = bf16(h / sqrt(mean h^2 + eps) * w)   (the norm reads the bf16 residual)
//   once-rounded: y = bf16(s / sqrt(mean s^2 + eps) * w) with s = x + r in fp32 (one rounding)
//                                                             buffers: x, r, w in, h out, y out
enum class Residual { rounded, once_rounded };
Entry add_rms_norm(Residual form, double eps = 1e-6);

}  // namespace kc::rows
