// What the tests of the blocked float64 references share (tests/dense, tests/affine): a fixture that
// runs a test on every kernel set this CPU has, and the bit-equality they check.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../families/dense/src/ref_gemm.hpp"

namespace ref_isas {

// Bit-equal, but any NaN equals any NaN (payloads follow operand order, which the loops need not keep).
inline void expect_same(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bool same = std::isnan(want[i]) ? std::isnan(got[i]) : std::memcmp(&got[i], &want[i], sizeof(double)) == 0;
    if (!same && bad++ < 3) ADD_FAILURE() << what << " [" << i << "] blocked " << got[i] << " plain " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

struct Isas : ::testing::Test {
  void TearDown() override { kc::fam::force_ref_isa(kc::fam::RefIsa::best); }
  // Every kernel set this CPU can run, each named (sets it cannot run are said, not passed).
  std::vector<kc::fam::RefIsa> sets() {
    std::vector<kc::fam::RefIsa> out;
    for (auto s : {kc::fam::RefIsa::portable, kc::fam::RefIsa::avx2, kc::fam::RefIsa::avx512})
      if (kc::fam::force_ref_isa(s)) out.push_back(s);
      else std::printf("note: this CPU cannot run kernel set %d; not checked here\n", int(s));
    return out;
  }
};

}  // namespace ref_isas
