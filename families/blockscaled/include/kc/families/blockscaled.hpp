// The block-scaled input family (DESIGN.md §2.3): projections over FP8 and FP4 checkpoints' weights
// (kc/lowp.hpp's formats), each code times the scale of the block it lies in:
//
//   y[m, n] = sum_k a[m, k] * w[n, k]
//   w[n, k] = code(q[n, k]) * s(n, k)              (NVFP4: * g, its fp32 tensor scale)
//   a[m, k] = x[m, k] (bf16)  or  code(xq[m, k]) * sx(m, k)   (FP8 activations, their own scales)
//
// The float64 reference evaluates exactly this, the dequantized formula, on the stored codes and
// scales; the magnitude of y[m, n] is sum_k |a w|. Every NaN code (e4m3's 0x7F and 0xFF, e8m0's
// 0xFF, ue4m3's 0x7F) is a NaN there, so a kernel that reads one as a number changes a class.
//
// Weights (dims "m", "n", "k"; every buffer row-major):
//   fp8_tensor    q [n x k] u8 e4m3, s [1] f32
//   fp8_channel   q [n x k] u8 e4m3, s [n] f32
//   fp8_block128  q [n x k] u8 e4m3, s [ceil(n/128) x ceil(k/128)] f32 (a ragged last block)
//   mxfp4         q [n x k/2] u8 e2m1 pairs, s [n x k/32] u8 e8m0        (OCP MX)
//   nvfp4         q [n x k/2] u8 e2m1 pairs, s [n x k/16] u8 ue4m3, g [1] f32
// An FP4 byte holds element 2i in its low nibble and 2i + 1 in its high one.
// Activations: bf16 x [m x k]; or fp8 xq [m x k] u8 e4m3 with sx [1] f32 (fp8_tensor) or sx
// [m x ceil(k/128)] f32 (fp8_group128, one scale a row's 128 columns). Output y [m x n], bf16 or f32.
//
// Fills: random (gates 2, 3): signed bf16 x over 2^-3..2^4, codes uniform over every non-NaN code,
// scales of spread magnitude (fp32 (1 + U) 2^e; every e8m0 code but NaN, 2^-127 to 2^127, a row's
// within 8 codes, the top windows' rows of one small code a block against small x; every ue4m3 code
// but NaN), so a scale read for the wrong block or decoded wrong, or a code read from the wrong
// nibble, moves outputs far past the bound.
// nonfinite (gate 1): positive activations, positive non-zero codes and positive scales (no sum
// cancels to 0 or changes sign, so a plant's class is the formula's, never an accident of order),
// then one plant at a column (Fill::pos; default last, first or middle) of the last row: NaN, +Inf,
// -Inf, both infinities and whole rows in x; NaN codes in xq and q; NaN and +-Inf in the fp32
// scales (s, sx, g) at the block holding the column; the NaN code of an e8m0 or ue4m3 scale.
// sums (gate 4): integer codes and power-of-two scales (sums_row): every fp32 sum, per block or
// across blocks, is an exact integer below 2^24 while each fp16 and bf16 replay misses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kc/spec.hpp"

namespace kc::blockscaled {

enum class Weights : uint8_t { fp8_tensor, fp8_channel, fp8_block128, mxfp4, nvfp4 };
enum class Acts : uint8_t { bf16, fp8_tensor, fp8_group128 };

const char* name(Weights w);  // "fp8_tensor", ...
const char* name(Acts a);     // "bf16", "fp8_tensor", "fp8_group128"
bool is_fp4(Weights w);
// The k extent one weight scale covers (0: the whole row) and the n extent (1, or 128).
int64_t block_k(Weights w);
int64_t block_n(Weights w);
// The step a valid k moves by: 16 for FP8 (16-byte rows), the scale block for FP4.
int64_t k_step(Weights w);
inline constexpr int64_t kActGroup = 128;  // fp8_group128's columns a scale

// The projection's entry. FP8 activations go with FP8 weights only (throws Error otherwise).
// `interval` > 0: the kernel sums each `interval` columns of K on tensor cores, in their own
// accumulation, and promotes each interval's sum to an fp32 accumulator (a wgmma GEMM). Gate 4's
// rows then keep the big terms' intervals free of small ones (sums_row), so what it proves is the
// fp32 sum across intervals, whatever the tensor core keeps within one.
Entry projection(Weights w, Acts a, DType out, int64_t interval = 0);

// Gate 4's rows (exposed for the tests), as the values each element decodes to. For k >= 96:
//   positions [0, 32):   a = 256, w = 512 (every product 2^17);  [k-32, k): a = -256, the mirror;
//   between:             small integer a and w, a antisymmetric and w symmetric about the middle,
//                        so their products cancel in pairs;
//   one position p:      a[p] = unit - a[k-1-p] (unit: the smallest step of a), so y = unit w[p].
// Each value is a code times a power-of-two scale of its format (the caller encodes them). With
// FP8 weights every weight scale is 2; with FP4 the 32 end positions' blocks take 2^7 and the
// others 2. fp8_tensor activations have scale 1, fp8_group128 2. Every partial sum, in any order,
// is an integer below 2^24: an fp16 replay overflows on the first term, a bf16 one loses every
// small term beside a 2^17 partial, and the row is redrawn until each of the six replays misses.
// interval > 0: a small term (and its mirror) in an interval of K that holds a big term is 0, so
// an interval's terms are all big or all small, and p lies where both it and its mirror are small;
// throws Error where k leaves no such position.
struct SumsRow {
  std::vector<double> a, w;          // the values: a code's value times its scale
  std::vector<double> acode, wcode;  // the codes' values
};
SumsRow sums_row(Weights w, Acts a, int64_t k, uint64_t seed, int64_t interval = 0);

}  // namespace kc::blockscaled
