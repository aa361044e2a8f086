// Stated rules (argmax, topk): the rule check passes the right ids and names the row of a wrong one;
// random fills hold ties at the top of a row, so the tie rule is exercised.
#include <gtest/gtest.h>

#include "rows_harness.hpp"

namespace {
using namespace rows_test;
using kc::DType;
using kc::Fill;
using kc::FillKind;

void write_want(kc::Case& c, const kc::Entry& e) {
  for (const auto& ex : e.rig.reference(c))
    for (size_t i = 0; i < ex.want.size(); ++i) set(c, ex.name, i, ex.want[i]);
}

TEST(RowsRule, ArgmaxRuleHoldsAndCatches) {
  auto e = kc::rows::argmax(DType::f32);
  EXPECT_FALSE(e.spec.rule.empty());
  ASSERT_TRUE(e.rig.rule);
  for (int p = 0; p < int(e.rig.plants.size()); ++p) {
    auto c = prepared(e, shape(3, 64), Fill{FillKind::nonfinite, p, 10});
    write_want(c, e);
    EXPECT_EQ(e.rig.rule(c), "") << e.rig.plants[size_t(p)];
    auto id = values(c, "id");
    if (p == 0) {
      EXPECT_EQ(id[1], -1);  // the NaN row is flagged
    }
    if (p == 1) {
      EXPECT_EQ(id[1], 10);  // +Inf at column 10 is the max
    }
    set(c, "id", 1, id[1] == 0 ? 1 : 0);
    EXPECT_NE(e.rig.rule(c).find("row 1"), std::string::npos);
  }
}

TEST(RowsRule, RandomRowsHoldTiesAtTheTop) {
  auto e = kc::rows::argmax(DType::f32);
  auto c = prepared(e, shape(8, 64), {}, 3);
  auto x = values(c, "x");
  auto want = e.rig.reference(c)[0].want;
  for (int r = 0; r < 8; ++r) {
    int at_max = 0;
    double m = x[size_t(r * 64 + int(want[size_t(r)]))];
    for (int j = 0; j < 64; ++j) at_max += x[size_t(r * 64 + j)] == m;
    EXPECT_GE(at_max, 2);
    for (int j = 0; j < want[size_t(r)]; ++j) EXPECT_LT(x[size_t(r * 64 + j)], m);  // the lowest id of the max
  }
}

TEST(RowsRule, TopkRuleHoldsAndCatches) {
  auto e = kc::rows::topk(DType::bf16, 4);
  for (int p = 0; p < int(e.rig.plants.size()); ++p) {
    auto c = prepared(e, shape(3, 32), Fill{FillKind::nonfinite, p, 5});
    write_want(c, e);
    EXPECT_EQ(e.rig.rule(c), "") << e.rig.plants[size_t(p)];
    // NaN ranks first.
    if (p == 0) {
      EXPECT_EQ(values(c, "ids")[4], 5);
    }
    // Swapping two ranks breaks the order.
    auto ids = values(c, "ids");
    set(c, "ids", 4, ids[5]);
    set(c, "ids", 5, ids[4]);
    EXPECT_NE(e.rig.rule(c).find("row 1"), std::string::npos);
  }
  // A right id with a wrong value is caught too.
  auto c = prepared(e, shape(2, 32), Fill{FillKind::nonfinite, 1, 5});
  write_want(c, e);
  set(c, "vals", 0, values(c, "vals")[0] + 1);
  EXPECT_NE(e.rig.rule(c).find("row 0"), std::string::npos);
}

}  // namespace
