// Half-ulps, their absolute floors, gamma, value classes, and element loads and stores.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "kc/numeric.hpp"

namespace {
using kc::DType;

TEST(Bounds, HalfUlp) {
  EXPECT_EQ(kc::half_ulp(DType::bf16), std::ldexp(1.0, -8));
  EXPECT_EQ(kc::half_ulp(DType::f16), std::ldexp(1.0, -11));
  EXPECT_EQ(kc::half_ulp(DType::f32), std::ldexp(1.0, -24));
  EXPECT_EQ(kc::half_ulp(DType::f64), std::ldexp(1.0, -53));
  for (DType t : {DType::i64, DType::i32, DType::u32, DType::u16, DType::u8, DType::i8})
    EXPECT_EQ(kc::half_ulp(t), 0) << kc::dtype_name(t);
}

TEST(Bounds, HalfUlpFloorIsHalfTheLeastSubnormal) {
  EXPECT_EQ(kc::half_ulp_floor(DType::bf16), std::ldexp(1.0, -134));
  EXPECT_EQ(kc::half_ulp_floor(DType::f16), std::ldexp(1.0, -25));
  EXPECT_EQ(kc::half_ulp_floor(DType::f32), std::ldexp(1.0, -150));
  EXPECT_EQ(kc::half_ulp_floor(DType::f32), std::numeric_limits<float>::denorm_min() / 2.0);
  EXPECT_EQ(kc::half_ulp_floor(DType::f16), kc::from_f16({1}) / 2.0);
  EXPECT_EQ(kc::half_ulp_floor(DType::bf16), kc::from_bf16({1}) / 2.0);
  for (DType t : {DType::i64, DType::i32, DType::u8}) EXPECT_EQ(kc::half_ulp_floor(t), 0);
}

TEST(Bounds, Gamma) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_EQ(kc::gamma(0), 0);
  EXPECT_DOUBLE_EQ(kc::gamma(1), u / (1 - u));
  EXPECT_DOUBLE_EQ(kc::gamma(1000), 1000 * u / (1 - 1000 * u));
  EXPECT_GT(kc::gamma(1000), 1000 * u);
  EXPECT_TRUE(std::isinf(kc::gamma(std::ldexp(1.0, 24))));
  EXPECT_DOUBLE_EQ(kc::gamma(4, 0.125), 0.5 / 0.5);
}

TEST(Bounds, Classes) {
  EXPECT_EQ(kc::fclass(1.0), kc::FClass::finite);
  EXPECT_EQ(kc::fclass(-0.0), kc::FClass::finite);
  EXPECT_EQ(kc::fclass(std::nan("")), kc::FClass::nan);
  EXPECT_EQ(kc::fclass(INFINITY), kc::FClass::pinf);
  EXPECT_EQ(kc::fclass(-INFINITY), kc::FClass::ninf);
  EXPECT_STREQ(kc::fclass_name(kc::FClass::pinf), "+Inf");
}

TEST(Bounds, LoadAndStoreEveryType) {
  std::vector<std::byte> buf(64);
  for (DType t : {DType::f64, DType::f32, DType::f16, DType::bf16, DType::i64, DType::i32, DType::u32,
                  DType::u16, DType::u8, DType::i8}) {
    double v = (t == DType::u32 || t == DType::u16 || t == DType::u8) ? 100 : -100;
    kc::store_from_double(buf.data(), t, 3, v);
    EXPECT_EQ(kc::load_as_double(buf.data(), t, 3), v) << kc::dtype_name(t);
  }
  // Floats round to nearest on store.
  kc::store_from_double(buf.data(), DType::bf16, 0, 1 + 0x1p-8 + 0x1p-30);
  EXPECT_EQ(kc::load_as_double(buf.data(), DType::bf16, 0), 1 + 0x1p-7);
  kc::store_from_double(buf.data(), DType::f32, 1, 0.1);
  EXPECT_EQ(kc::load_as_double(buf.data(), DType::f32, 1), static_cast<double>(0.1f));
  // Integers must fit exactly.
  EXPECT_THROW(kc::store_from_double(buf.data(), DType::i32, 0, 1.5), kc::Error);
  EXPECT_THROW(kc::store_from_double(buf.data(), DType::u8, 0, 256), kc::Error);
  EXPECT_THROW(kc::store_from_double(buf.data(), DType::u16, 0, -1), kc::Error);
  EXPECT_THROW(kc::store_from_double(buf.data(), DType::i32, 0, std::nan("")), kc::Error);
  // Large i64 loads exactly where the double can hold it.
  int64_t big = int64_t{1} << 60;
  std::memcpy(buf.data(), &big, 8);
  EXPECT_EQ(kc::load_as_double(buf.data(), DType::i64, 0), std::ldexp(1.0, 60));
}

}  // namespace
