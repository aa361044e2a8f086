// Low-precision element and scale formats of FP8 and FP4 checkpoints, stored as plain codes (u8, or
// a nibble for e2m1), with their float64 values and the conversions to them.
//
//   e4m3   1-4-3, bias 7, subnormals; no infinity; S.1111.111 (0x7F, 0xFF) is NaN; max 448
//   e5m2   1-5-2, bias 15, IEEE-like: S.11111.00 is +-Inf, S.11111.{01,10,11} NaN; max 57344
//   e2m1   1-2-1, bias 1 (a nibble): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; no Inf, no NaN
//   e8m0   unsigned, 8 exponent bits, bias 127: 2^(c - 127); no zero; 0xFF is NaN (MX scales)
//   ue4m3  e4m3 without its sign (NVFP4's block scales): 0x00..0x7E as e4m3, 0x7F NaN; a code with
//          bit 7 set is no ue4m3 value and reads as NaN
//
// Conversions round to nearest, ties to the even code. Sat::finite is NVIDIA's cvt .satfinite
// (what checkpoint quantizers and our kernels' conversions use; PTX requires it for e4m3x2 and
// e5m2x2 outputs): a value past the largest finite one, +-Inf included, becomes +-max, NaN stays
// NaN. Sat::none is the OCP OFP8 non-saturating rule: a value that rounds past max is NaN in e4m3
// and Inf in e5m2 (IEEE: max + half an ulp is a tie that rounds to the even Inf). e2m1 has no code
// for either, so it saturates in both modes (the OCP MX rule) and refuses a NaN. The unsigned
// scales take no negative value: a negative input is their NaN (-0 is +0).
#pragma once
#include <cstdint>

#include "kc/numeric.hpp"

namespace kc::lowp {

enum class Format : uint8_t { e4m3, e5m2, e2m1, e8m0, ue4m3 };
enum class Sat : uint8_t { finite, none };

const char* name(Format f);
int bits(Format f);          // 8, or 4 for e2m1
double max_finite(Format f);  // 448, 57344, 6, 2^127, 448
bool is_nan(Format f, uint32_t code);

// The value of a code (code < 2^bits): exact, NaN for a NaN code, +-Inf for e5m2's.
double decode(Format f, uint32_t code);
// The code of x. Round::down / Round::up (toward -Inf / +Inf) are taken by e8m0 only, as cvt.rz /
// cvt.rp to ue8m0 do for scales; the others throw Error on them. e2m1 throws Error on a NaN. e8m0
// has no zero: a value below 2^-127 (+-0 included) is 0x00, its least.
uint32_t encode(Format f, double x, Sat s = Sat::finite, Round r = Round::nearest);

}  // namespace kc::lowp
