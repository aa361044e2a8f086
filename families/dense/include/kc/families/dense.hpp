// The dense input family (DESIGN.md §2.3): dots against weights in K slices, the shape of every
// bf16 projection (decode GEMV, its split-K forms, prompt GEMM tiles).
//
//   y[m, n] = sum_k x[m, k] * w[n, k]          (y = x . W^T, W row-major [n x k])
//
// Dims are "m", "n" and "k". Buffers: x [m x k] bf16 in, w [n x k] bf16 in, y [m x n] out (bf16 or
// f32). The rig builds inputs for every gate:
//  - random (gates 2, 3): bf16 values of both signs over 2^-3 .. 2^4, no zeros;
//  - nonfinite (gate 1): NaN, +Inf, -Inf and both infinities planted in x's last row and, as four
//    more plants, in w's last row, at column Fill::pos (default k - 1: the ragged tail); then for x
//    and w NaN and -Inf at the first and middle columns, a negative and a payload NaN, and a row of
//    -Inf (kc/families/plants.hpp); last, +Inf in w's last row facing a 0 in x's (0 * Inf);
//  - named fills (gates 2, 3; Fill::dist): zeros, offset, sign, range, cut (fills.hpp; cut: both
//    operands, the tensor-core step truncation docs/tensor-cores.md describes);
//  - sums (gate 4): see sums_row(); every product and partial sum is an integer below 2^24, so fp32
//    sums are exact in any order, while fp16 overflows and bf16 loses the result in all three
//    replay orders.
// The reference is the formula in float64; the magnitude of y[m, n] is sum_k |x[m,k] w[n,k]|.
// A kernel's contract adds its envelope, its depth (from its K slicing: see the helpers below) and
// its launch.
#pragma once
#include <cstdint>
#include <vector>

#include "kc/spec.hpp"

namespace kc::dense {

// The projection's entry for output type `out` (bf16 or f32).
Entry projection(DType out);

// Depth of a dot whose K is cut into `slices` accumulators, each a chain of fp32 roundings over its
// share of K (one rounding a term: a bf16 x bf16 product is exact in fp32, so an fma or a multiply
// then add rounds once), the slices then meeting in `meet` more roundings:
//   ceil(k / slices) + meet
double slice_depth(int64_t k, int64_t slices, int64_t meet);

// Gate 4's integer rows (exposed for the tests). For a row pair (x row, w row) of length k >= 65:
//   positions [0, 32):       x = 512, w = 256: each product 2^17;
//   positions [k-32, k):     x = -512, w = 256: each product -2^17 (the mirror of the first 32);
//   positions [32, k-32):    small integers, |x| <= 15, 1 <= |w| <= 31, x antisymmetric and w
//                            symmetric about the row's middle, so their products cancel in pairs;
//   x[k-33] = 1 + its mirror's value: the result is w[n, k-33] (small, never 0), position 32's
//                            partner keeps x = 0 for that.
// Every partial sum in any order is an integer of magnitude < 2^23 + 2^23, exact in fp32. An fp16
// replay overflows on the first 2^17 term; a bf16 replay loses every small term next to a 2^17
// partial (in chain, halves and each of 32 lanes), so it gives 0 or a multiple of 2^14 for a
// result between 1 and 31 in magnitude.
// xs and ws are filled with the row's x and w values (as doubles, each exact in bf16).
void sums_rows(int64_t k, uint64_t xseed, uint64_t wseed, std::vector<double>& xs, std::vector<double>& ws);

}  // namespace kc::dense
