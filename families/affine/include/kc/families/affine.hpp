// The affine input family (DESIGN.md §2.3): MLX's affine-quantized projections. Along K, each group
// of `group` (32, 64 or 128) weights of row n has a bf16 scale s[n, g] and bias b[n, g], and codes q
// of `bits` (2, 3, 4, 5, 6 or 8) packed as MLX packs them. The formula, as MLX's kernels evaluate
// it (a sum of x q and a sum of x per group, then the group's scale and bias):
//
//   y[m, n] = sum_g ( s[n,g] * sum_{k in g} x[m,k] q[n,k]  +  b[n,g] * sum_{k in g} x[m,k] )
//
// which for finite inputs equals sum_k x[m,k] (s q[n,k] + b); the float64 reference evaluates this
// factored form, so non-finite classes are MLX's. The magnitude of y[m, n] is
// sum_k |x[m,k]| (|s q[n,k]| + |b|): what the sums of either form add.
//
// Dims "m", "n", "k" (k a multiple of the group). Buffers: x [m x k] bf16, q [n x k*bits/32] u32,
// s [n x k/group] bf16, b [n x k/group] bf16, y [m x n] out (bf16 or f32).
//
// Fills: random (signed x, s and b of spread magnitudes, codes over their whole range); nonfinite
// (x and s positive, codes >= 1, so a plant's class does not hang on a zero code or on the sign
// of one group's sum; NaN, +Inf, -Inf and both infinities in x's last row at Fill::pos (default
// k - 1); NaN, +Inf, -Inf in s and in b of w's last row at the group holding Fill::pos (default
// group 0); and +Inf in s with -Inf in b of that group; then for x, s and b NaN and -Inf at the
// first and middle columns (s, b: their groups), a negative and a payload NaN, and a row of -Inf);
// named fills of x (gates 2, 3; Fill::dist): zeros, offset, sign, range; sums (gate 4, sums_rows()).
#pragma once
#include <cstdint>
#include <vector>

#include "kc/spec.hpp"

namespace kc::affine {

Entry projection(int bits, int group, DType out);

// MLX's packing: a row's codes form one little-endian bit stream, code i in bits [i*bits,
// (i+1)*bits), stored in 32-bit words (for 3, 5 and 6 bits a code may straddle two words).
int64_t words_per_row(int64_t k, int bits);  // k * bits / 32; throws Error unless whole
void pack_row(const uint32_t* codes, int64_t k, int bits, uint32_t* words);
uint32_t code_at(const uint32_t* words, int64_t i, int bits);

// Gate 4's integer rows (exposed for the tests): x as in dense::sums_rows with 4096 in place of
// 512 and the small |x| bounded so |x w| < 512; one scale a row (1 or 2), biases 1..4, codes
// palindromic in runs of 8 and mirrored about the row's middle, code 1 at the 32 positions at each
// end, whose groups take the bias 32 - s, so those weights are 32 and their products +-2^17.
// Every sum either form adds is an integer below 2^24. xs: the x row; s, b: per group; q: codes.
void sums_rows(int64_t k, int bits, int group, uint64_t xseed, uint64_t wseed, std::vector<double>& xs,
               double& s, std::vector<double>& b, std::vector<uint32_t>& q);

}  // namespace kc::affine
