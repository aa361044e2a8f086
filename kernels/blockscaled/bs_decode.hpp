// Software decode of the block-scaled family's codes to fp32, by their bits, as a kernel does it
// (host and device). e4m3's NaN codes decode to NaN: the NaN rule every block-scaled kernel here
// follows. Each function is exact: every code's value is an fp32 value.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define KC_BS_HD __host__ __device__ __forceinline__
#else
#define KC_BS_HD inline
#endif

namespace kc::bs {

KC_BS_HD float bits_f32(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

// e4m3: a normal code's exponent (bias 7) rebased to fp32's (bias 127) and its mantissa shifted
// to fp32's top bits; a subnormal is m * 2^-9. S.1111.111 is NaN.
KC_BS_HD float e4m3_f32(uint32_t c) {
  const uint32_t s = (c & 0x80u) << 24, e = (c >> 3) & 0xFu, m = c & 7u;
  if (e == 0xF && m == 7) return bits_f32(s | 0x7FC00000u);
  if (e == 0) return s ? -(float(m) * 0x1p-9f) : float(m) * 0x1p-9f;  // -0 kept
  return bits_f32(s | (e + 120) << 23 | m << 20);
}

// The reading of 0x7F and 0xFF as numbers (+-480): what a decode that forgets e4m3's NaN codes
// gives. Kept for the planted control that must go red at gate 1.
KC_BS_HD float e4m3_f32_no_nan(uint32_t c) {
  const uint32_t s = (c & 0x80u) << 24, e = (c >> 3) & 0xFu, m = c & 7u;
  if (e == 0) return s ? -(float(m) * 0x1p-9f) : float(m) * 0x1p-9f;
  return bits_f32(s | (e + 120) << 23 | m << 20);
}

// e2m1 (a nibble): 0, 0.5, 1, 1.5, 2, 3, 4, 6, bit 3 the sign.
KC_BS_HD float e2m1_f32(uint32_t nib) {
  const uint32_t e = (nib >> 1) & 3u, m = nib & 1u;
  const float mag = e == 0 ? 0.5f * float(m) : bits_f32((e + 126) << 23 | m << 22);
  return nib & 8u ? -mag : mag;
}

// e8m0: 2^(c - 127), 0xFF NaN; code 0 is fp32's subnormal 2^-127.
KC_BS_HD float e8m0_f32(uint32_t c) {
  if (c == 0xFF) return bits_f32(0x7FC00000u);
  return c == 0 ? bits_f32(0x00400000u) : bits_f32(c << 23);
}

// ue4m3: e4m3 without a sign; a code with bit 7 set is no value (NaN), 0x7F is NaN.
KC_BS_HD float ue4m3_f32(uint32_t c) { return c & 0x80u ? bits_f32(0x7FC00000u) : e4m3_f32(c); }

}  // namespace kc::bs
